// Public surface of src/parse; filled in by its owner.
export {};
