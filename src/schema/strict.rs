//! Typing a JSON value as strictly as the schema reads it, so that a value that types here passes
//! the schema without compiling it. serde alone is more lenient than the schema in three places,
//! each closed here: it reads a list as a struct (fields in order), it reads `null` as an absent
//! optional field, and an untagged enum (`Secret`) buffers any value, a list included. What the
//! model's types cannot say (`minItems`) the caller checks; `tests/schema.rs` keeps the list of
//! such keywords in step with the committed schema.

use crate::spec::CONFIG_VALUE;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::Value;

/// The value typed as `T`, or `None` when only the schema can say what is wrong with it. The value
/// is consumed: its strings move into the typed fields, and each part is freed once typed, so a
/// large spec is not held twice.
pub(crate) fn type_strictly<T: de::DeserializeOwned>(value: Value) -> Option<T> {
    T::deserialize(Strict(value)).ok()
}

/// A mapping's members typed as `T`, as [`type_strictly`] types the object that holds them.
pub(crate) fn type_members<'k, T: de::DeserializeOwned>(
    members: impl Iterator<Item = (&'k str, Value)>,
) -> Option<T> {
    T::deserialize(StrictMembers(members)).ok()
}

/// Why strict typing stopped; the reference path says it properly.
#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not typed strictly")
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Refused
    }
}

struct Strict(Value);

impl<'de> Deserializer<'de> for Strict {
    type Error = Refused;

    /// Reached by scalars, structs, maps and untagged enums, none of which may see a list or a
    /// null (a struct would read a list as its fields in order).
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.0 {
            Value::Bool(flag) => visitor.visit_bool(flag),
            Value::Number(number) => {
                if let Some(unsigned) = number.as_u64() {
                    visitor.visit_u64(unsigned)
                } else if let Some(signed) = number.as_i64() {
                    visitor.visit_i64(signed)
                } else {
                    visitor.visit_f64(number.as_f64().ok_or(Refused)?)
                }
            }
            Value::String(text) => visitor.visit_string(text),
            Value::Object(members) => visitor.visit_map(Members {
                members: members.into_iter(),
                value: None,
            }),
            Value::Null | Value::Array(_) => Err(Refused),
        }
    }

    /// The schema allows no `null`: an optional field is optional by being absent.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.0 {
            Value::Null => Err(Refused),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Items(items.into_iter())),
            _ => Err(Refused),
        }
    }

    /// The spec's enums are names: a string, one of the variants.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        match self.0 {
            Value::String(text) => visitor.visit_enum(text.into_deserializer()),
            _ => Err(Refused),
        }
    }

    /// `spec::ConfigValue`, a string, number, boolean or list of them, gets the value whole.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        if name == CONFIG_VALUE {
            visitor.visit_newtype_struct(self.0).map_err(|_| Refused)
        } else {
            visitor.visit_newtype_struct(self)
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct tuple tuple_struct map struct identifier ignored_any
    }
}

struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = Refused;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Refused> {
        self.0
            .next()
            .map(|item| seed.deserialize(Strict(item)))
            .transpose()
    }
}

/// A mapping's members outside a JSON value; typed only as a whole mapping.
struct StrictMembers<I>(I);

impl<'de, 'k, I: Iterator<Item = (&'k str, Value)>> Deserializer<'de> for StrictMembers<I> {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        visitor.visit_map(Members {
            members: self.0,
            value: None,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// An object's members, each a name and its value.
struct Members<I> {
    members: I,
    value: Option<Value>,
}

impl<'de, Name, I> MapAccess<'de> for Members<I>
where
    Name: IntoDeserializer<'de, Refused>,
    I: Iterator<Item = (Name, Value)>,
{
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Refused> {
        let Some((name, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Refused> {
        let value = self.value.take().ok_or(Refused)?;
        seed.deserialize(Strict(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{ControlPlane, Metadata, Network, Node, Rke2, Secret};
    use serde_json::json;

    #[test]
    fn what_the_schema_accepts_types() {
        let node: Node = type_strictly(json!({
            "name": "win-0", "os": "windows", "roles": ["worker"], "address": "10.0.0.1",
            "cloud": {"instanceId": "i-1"}
        }))
        .unwrap();
        assert_eq!((node.name.as_str(), node.roles.len()), ("win-0", 1));
        let network: Network = type_strictly(json!({
            "clusterCidr": "10.244.0.0/16", "serviceCidr": "10.96.0.0/12",
            "nodeCidrMaskSize": 24, "maxPodsPerNode": 110
        }))
        .unwrap();
        assert_eq!(network.node_cidr_mask_size, Some(24));
        let control_plane: ControlPlane = type_strictly(json!({
            "kubeadmToken": {"fromEnv": "KUBEADM_TOKEN"}, "kubeadmCaHash": "sha256:00"
        }))
        .unwrap();
        assert!(matches!(
            control_plane.kubeadm_token,
            Some(Secret::FromEnv(_))
        ));
        assert!(matches!(
            control_plane.kubeadm_ca_hash,
            Some(Secret::Inline(_))
        ));
    }

    #[test]
    fn what_only_the_schema_refuses_does_not_type() {
        // Each of these serde alone accepts.
        let lenient: Result<Metadata, _> = serde_json::from_value(json!(["demo"]));
        assert!(lenient.is_ok());
        assert!(type_strictly::<Metadata>(json!(["demo"])).is_none());
        assert!(
            type_strictly::<Network>(json!({
                "clusterCidr": "10.244.0.0/16", "serviceCidr": "10.96.0.0/12", "dnsServiceIp": null
            }))
            .is_none()
        );
        assert!(
            type_strictly::<ControlPlane>(json!({"kubeadmToken": ["KUBEADM_TOKEN"]})).is_none()
        );
        // And what serde refuses as well.
        assert!(type_strictly::<Network>(json!({"clusterCidr": 1, "serviceCidr": "x"})).is_none());
        assert!(
            type_strictly::<Network>(json!({
                "clusterCidr": "a", "serviceCidr": "b", "nodeCidrMaskSize": 256
            }))
            .is_none()
        );
        assert!(
            type_strictly::<Network>(json!({
                "clusterCidr": "a", "serviceCidr": "b", "maxPodsPerNode": 1.0
            }))
            .is_none()
        );
        assert!(type_strictly::<Metadata>(json!({"name": "a", "extra": 1})).is_none());
    }

    #[test]
    fn members_type_as_the_object_that_holds_them() {
        let typed = |node: &Value| {
            let members = node.as_object().unwrap().clone();
            let pairs: Vec<(String, Value)> = members.into_iter().collect();
            let from_members: Option<Node> = type_members(
                // Document order, not the object's sorted order.
                pairs
                    .iter()
                    .rev()
                    .map(|(key, value)| (key.as_str(), value.clone())),
            );
            let from_object: Option<Node> = type_strictly(node.clone());
            let typed = from_object.is_some();
            let shown = |node: Option<Node>| node.map(|node| serde_json::to_value(node).unwrap());
            assert_eq!(shown(from_members), shown(from_object), "{node}");
            typed
        };
        assert!(typed(&json!({
            "name": "win-0", "os": "windows", "roles": ["worker"], "address": "10.0.0.1",
            "windowsBuild": "10.0.20348.2762", "interfaceName": "Ethernet 2",
            "cloud": {"instanceId": "i-1"}
        })));
        for refused in [
            json!({"name": "a", "os": "linux", "roles": ["worker"], "address": "10.0.0.1", "extra": 1}),
            json!({"name": "a", "os": "linux", "roles": "worker", "address": "10.0.0.1"}),
            json!({"name": "a", "os": "linux", "roles": ["worker"], "address": null}),
            json!({"name": "a", "os": "beos", "roles": ["worker"], "address": "10.0.0.1"}),
            json!({"name": "a", "os": "linux", "roles": ["worker"]}),
        ] {
            assert!(!typed(&refused));
        }
        // A list is no mapping.
        assert!(type_members::<Node>(std::iter::empty()).is_none());
    }

    #[test]
    fn config_values_type_whole() {
        let rke2: Rke2 = type_strictly(json!({
            "config": {"kubelet-arg": ["max-pods=250"], "debug": true},
            "serverConfig": {"etcd-snapshot-retention": 10}
        }))
        .unwrap();
        let config = rke2.config.unwrap();
        assert_eq!(config["kubelet-arg"].0, json!(["max-pods=250"]));
        assert_eq!(config["debug"].0, json!(true));
        assert_eq!(
            rke2.server_config.unwrap()["etcd-snapshot-retention"].0,
            json!(10)
        );
        for refused in [
            json!(null),
            json!({"a": 1}),
            json!([["nested"]]),
            json!([null]),
        ] {
            assert!(type_strictly::<Rke2>(json!({"config": {"key": refused}})).is_none());
        }
        // The secret reference still refuses a list beside it.
        assert!(type_strictly::<Rke2>(json!({"token": ["RKE2_TOKEN"]})).is_none());
    }
}
