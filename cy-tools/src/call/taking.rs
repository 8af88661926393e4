//! Deserializing a tool's parameters from the argument value, moving its strings out instead
//! of copying them.
//!
//! Deserializing from `&Value` copies every string into the parameters and then frees the
//! value; deserializing the owned value would move them, but a failure then leaves nothing to
//! run the path-tracking pass on that names the bad field. [`Taking`] reads a `&mut Value`:
//! it moves out only the strings a parameter asks for as an owned `String`
//! (`deserialize_string`), leaving `""`, and borrows everything else. A failed pass thus leaves
//! a value that differs only in strings already accepted as `String`s, which `""` still is, so
//! the second pass finds the same first error.

use serde::de::value::StrDeserializer;
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Error, Value};

use super::taking_access::{Variant, visit_map, visit_seq};

/// A deserializer over a value it may move strings out of.
pub(crate) struct Taking<'a>(pub(crate) &'a mut Value);

impl<'de> Deserializer<'de> for Taking<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.clone().deserialize_any(visitor),
            // Borrowed: `any` also serves buffering (untagged enums, flatten), whose second
            // pass must see the same text.
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visit_seq(items, visitor),
            Value::Object(map) => visit_map(map, visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_string(std::mem::take(s)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(StrDeserializer::<Error>::new(s)),
            Value::Object(map) if map.len() == 1 => {
                let Some((variant, value)) = map.iter_mut().next() else {
                    unreachable!("a map of one entry has a first entry")
                };
                visitor.visit_enum(Variant { variant, value })
            }
            // serde_json's own words, so both passes name a bad enum alike.
            Value::Object(_) => Err(de::Error::invalid_value(
                de::Unexpected::Map,
                &"map with a single key",
            )),
            other => Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        }
    }

    // What follows takes each request as serde_json's own `Value` deserializer does: the
    // shape asked for, or its "invalid type" error. Forwarding them all to `deserialize_any`
    // would be the same for visitors that take one shape, but not for those that take several:
    // a variant identifier, for one, takes an integer as the variant's index, where serde_json
    // refuses it with "expected variant identifier" (the generated comparison in
    // `taking_differential.rs` found that on an internally tagged enum).

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(*b),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_str(s),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visit_seq(items, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_seq(items, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_map(map, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_seq(items, visitor),
            Value::Object(map) => visit_map(map, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    number! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }
}

/// Numbers, as serde_json reads them: a number as it is (`Number::deserialize_any`), anything
/// else refused.
macro_rules! number {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                match self.0 {
                    Value::Number(n) => n.clone().deserialize_any(visitor),
                    other => Err(invalid_type(other, &visitor)),
                }
            }
        )*
    };
}
use number;

/// serde_json's "invalid type" error for `value` where `visitor` wanted something else.
fn invalid_type<'de, V: Visitor<'de>>(value: &Value, visitor: &V) -> Error {
    de::Error::invalid_type(unexpected(value), visitor)
}

pub(super) fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => de::Unexpected::Unsigned(u),
            (_, Some(i), _) => de::Unexpected::Signed(i),
            (_, _, Some(f)) => de::Unexpected::Float(f),
            _ => de::Unexpected::Other("number"),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::Taking;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Params {
        name: String,
        note: Option<String>,
        tags: Vec<String>,
        count: u32,
        ratio: f64,
        flag: bool,
        path: PathBuf,
        extra: Value,
        place: Place,
        mode: Mode,
        shape: Shape,
        either: Either,
        map: BTreeMap<String, i64>,
        pair: (String, u8),
        id: Id,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Place {
        city: String,
        zip: Option<u32>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Slow,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Point,
        Circle(f64),
        Rect(u32, u32),
        Named { label: String },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(i64),
        Text(String),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Id(String);

    fn taking<P: DeserializeOwned>(mut value: Value) -> Result<P, String> {
        P::deserialize(Taking(&mut value)).map_err(|e| e.to_string())
    }

    fn reference<P: DeserializeOwned>(value: Value) -> Result<P, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    fn good() -> Value {
        json!({
            "name": "ada", "note": "hi", "tags": ["a", "b"], "count": 3, "ratio": 0.5,
            "flag": true, "path": "/w/a.txt", "extra": {"k": ["v", 1, null]},
            "place": {"city": "Oslo", "zip": null}, "mode": "slow",
            "shape": {"Named": {"label": "box"}}, "either": "text", "map": {"x": -1},
            "pair": ["p", 7], "id": "id-1"
        })
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let expected: Params = reference(good()).unwrap();
        assert_eq!(taking::<Params>(good()).unwrap(), expected);
        for shape in [
            json!("Point"),
            json!({"Circle": 1.5}),
            json!({"Rect": [2, 3]}),
        ] {
            let mut args = good();
            args["shape"] = shape;
            assert_eq!(taking::<Params>(args.clone()), reference::<Params>(args));
        }
        let mut args = good();
        args["either"] = json!(5);
        assert_eq!(taking::<Params>(args).unwrap().either, Either::Number(5));
    }

    #[test]
    fn refuses_what_serde_json_refuses_with_the_same_words() {
        let cases = [
            ("count", json!("3")),
            ("count", json!(-1)),
            ("name", json!(1)),
            ("tags", json!("a")),
            ("mode", json!("medium")),
            ("mode", json!({"fast": 1, "slow": 2})),
            ("shape", json!({"Circle": "big"})),
            ("shape", json!({"Rect": [1]})),
            ("shape", json!({"Rect": [1, 2, 3]})),
            ("shape", json!({"Point": 1})),
            ("either", json!(true)),
            ("pair", json!(["p"])),
            ("pair", json!(["p", 1, 2])),
            ("mode", json!(7)),
            ("shape", json!(null)),
            ("shape", json!({"Named": 1})),
            ("place", json!({"city": "x", "zip": "1"})),
            ("extra_field", json!(1)),
        ];
        for (field, bad) in cases {
            let mut args = good();
            args[field] = bad.clone();
            assert_eq!(
                taking::<Params>(args.clone()).unwrap_err(),
                reference::<Params>(args).unwrap_err(),
                "{field}: {bad}"
            );
        }
        let mut args = good();
        args.as_object_mut().unwrap().remove("count");
        assert_eq!(
            taking::<Params>(args.clone()).unwrap_err(),
            reference::<Params>(args).unwrap_err()
        );
    }

    #[test]
    fn a_failed_pass_leaves_the_same_first_error_for_the_tracked_one() {
        // `name` is moved out before `pair` fails (in key order, sorted or as written); the
        // path-tracking pass over what is left must still stop at `pair`.
        let mut args = good();
        args["pair"] = json!(["p", "x"]);
        let original = args.clone();
        assert!(Params::deserialize(Taking(&mut args)).is_err());
        assert_eq!(args["name"], json!(""));
        let after = serde_path_to_error::deserialize::<_, Params>(&args).unwrap_err();
        let before = serde_path_to_error::deserialize::<_, Params>(&original).unwrap_err();
        assert_eq!(after.path().to_string(), "pair[1]");
        assert_eq!(after.to_string(), before.to_string());
    }
}
