// x-message is bench's own keyword (docs/spec.md, "Schema keywords"): the
// message bench's validator gives when the schema object carrying it fails.
// Validation ignores it; ajv's strict mode wants every keyword declared.
module.exports = (ajv) => ajv.addKeyword({ keyword: "x-message", schemaType: "string" });
