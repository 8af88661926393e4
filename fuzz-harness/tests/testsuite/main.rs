//! The fuzz targets' checks on stable Rust, in CI: the committed corpus replayed through each
//! target, and generated schema-valid arguments for every linked tool.

mod corpus;
mod schema_valid;
