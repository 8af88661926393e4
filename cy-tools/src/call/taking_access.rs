//! The accessors [`Taking`] hands a visitor: over an array's items, an object's entries and
//! an enum's variant, each item read through a `Taking` of its own, so strings are moved out at
//! every depth.

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};
use serde_json::{Error, Map, Value};

use super::taking::{Taking, unexpected};

pub(super) fn visit_seq<'de, V: Visitor<'de>>(
    items: &mut [Value],
    visitor: V,
) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Seq {
        items: items.iter_mut(),
    };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in array"))
    }
}

pub(super) fn visit_map<'de, V: Visitor<'de>>(
    map: &mut Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = map.len();
    let mut access = Entries {
        entries: map.iter_mut(),
        value: None,
    };
    let value = visitor.visit_map(&mut access)?;
    if access.entries.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

struct Seq<'a> {
    items: std::slice::IterMut<'a, Value>,
}

impl<'de> SeqAccess<'de> for Seq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.items
            .next()
            .map(|item| seed.deserialize(Taking(item)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'a> {
    entries: serde_json::map::IterMut<'a>,
    value: Option<&'a mut Value>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(StrDeserializer::<Error>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Taking(value)),
            None => Err(de::Error::custom(
                "a map value was asked for before its key",
            )),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum variant: `{"variant": value}`.
pub(super) struct Variant<'a> {
    pub(super) variant: &'a str,
    pub(super) value: &'a mut Value,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = Taking<'a>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Taking<'a>), Error> {
        let tag = seed.deserialize(self.variant.into_deserializer())?;
        Ok((tag, Taking(self.value)))
    }
}

impl<'de> VariantAccess<'de> for Taking<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(unexpected(other), &"unit")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_seq(items, visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_map(map, visitor),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"struct variant",
            )),
        }
    }
}
