//! The result document and its consumers: JSON/CSV files, the bench summary table, the
//! cross-device comparison and the HTML report.

mod atomic;
pub mod build;
mod catalog;
mod charts;
mod compare;
mod compare_render;
mod gate;
mod html;
mod io;
mod load;
mod long;
mod matching;
mod schema;
mod table;
pub mod units;

pub use atomic::{STALE_AFTER, TEMP_PREFIX, check_writable, write_atomic};
pub use catalog::{Catalog, ExperimentInfo, Family, Figure, Fit};
pub use compare::{Cell, Comparison, ExperimentTable, Mark, Observation, Row, RowKind, VerdictRow};
pub use gate::{Change, FailOn, Gate, GateReport, parse_threshold};
pub use html::html_report;
pub use io::{
    ReadErrors, csv_bytes, file_labels, json_bytes, parse_json, read_documents, read_json,
    write_csv, write_json,
};
pub use load::{MAX_ARRAY_LEN, MAX_DEPTH, MAX_FILE_BYTES, MAX_LANES};
pub use long::{Column, ColumnType, LONG_COLUMNS, csv_table, long_csv, long_header};
pub use schema::*;
pub use table::{markdown_key_table, summary_table};
