// Public surface of src/convert; filled in by its owner.
export {};
