// The inbox imports the JSON Schema library from `vendor/json-schema/` beside its page, where the
// router serves the package's browser build (see api/create-api.ts): its types are the package's.
export * from '@cfworker/json-schema';
