//! JSON Schemas (draft 2020-12) of the documents divlab writes: the result document (`bench
//! --json`), the profile (`profile --json`) and the uniformity report (`uniformity --json`).
//! They are generated from the serde types by schemars, so they cannot drift from what divlab
//! reads and writes; the repository ships them in `schemas/` (a test holds those files equal to
//! these), and `divlab schema KIND` prints them. Each document names its schema in `$schema`,
//! the schema's `$id`.

use schemars::JsonSchema;
use serde_json::Value;

/// A document kind with a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// The result document: `divlab bench --json` (docs/results.md).
    Result,
    /// The profile document: `divlab profile --json` (docs/profile.md).
    Profile,
    /// The uniformity report: `divlab uniformity --json` (docs/uniformity.md).
    Uniformity,
}

impl Kind {
    /// Every kind, in the order of their files.
    pub const ALL: [Kind; 3] = [Kind::Result, Kind::Profile, Kind::Uniformity];

    /// The schema's file name in `schemas/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Kind::Result => "result.schema.json",
            Kind::Profile => "profile.schema.json",
            Kind::Uniformity => "uniformity.schema.json",
        }
    }

    /// The schema's `$id`, which the documents of this kind name in `$schema`.
    pub fn id(self) -> String {
        match self {
            Kind::Result => crate::report::result_schema_id(),
            Kind::Profile => crate::profile::report::profile_schema_id(),
            Kind::Uniformity => crate::uniformity::lint::schema_id(),
        }
    }

    /// The schema, as a JSON value.
    pub fn schema(self) -> Value {
        match self {
            Kind::Result => generate::<crate::report::ResultDocument>(self),
            Kind::Profile => generate::<crate::profile::report::Profile>(self),
            Kind::Uniformity => with_id(crate::uniformity::lint::json_schema(), self.id()),
        }
    }

    /// The schema as its file holds it: pretty JSON with a trailing newline.
    pub fn file_text(self) -> String {
        let mut text = serde_json::to_string_pretty(&self.schema()).expect("a schema serializes");
        text.push('\n');
        text
    }
}

/// `T`'s schema with the kind's `$id`.
fn generate<T: JsonSchema>(kind: Kind) -> Value {
    with_id(schemars::schema_for!(T), kind.id())
}

/// A generated schema with `id` as its `$id`, placed after `$schema`.
pub fn with_id(schema: schemars::Schema, id: String) -> Value {
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.insert("$id".to_owned(), Value::String(id));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_draft_2020_12_with_its_id() {
        for kind in Kind::ALL {
            let schema = kind.schema();
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{kind:?}"
            );
            assert_eq!(schema["$id"], kind.id().as_str());
            // The document's own `$schema` field is part of what the schema allows.
            assert!(schema["properties"]["$schema"].is_object(), "{kind:?}");
        }
    }
}
