//! The result document and its consumers: JSON/CSV files and the bench summary table.

mod io;
mod schema;
mod table;

pub use io::{parse_json, read_json, write_atomic, write_csv, write_json};
pub use schema::*;
pub use table::{markdown_key_table, summary_table};
