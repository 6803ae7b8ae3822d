package schema

// Manifest is the embedded schema of a bundle manifest: the payload of a
// bundle's DSSE envelope. It refers to the handoff record schema for its
// record.
const Manifest = "manifest.schema.json"
