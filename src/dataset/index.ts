// Public surface of src/dataset; filled in by its owner.
export {};
