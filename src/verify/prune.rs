//! Parsing a JSON capture without the fields `verify` never reads. A node's images, conditions
//! and capacity and a pod's containers, volumes and statuses are most of a capture's bytes: kept,
//! the values of a 5,000-node cluster take hundreds of megabytes, and the time goes into the
//! memory. They are skipped as they are parsed, so they are never built. Of a pod template's
//! containers (a DaemonSet's) only the name and image are kept: their environment may hold
//! secrets, and nothing compares it.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Fields of an object (`parent.field`, one level below its root) that nothing compares.
const UNREAD: [(&str, &str); 14] = [
    ("metadata", "managedFields"),
    ("spec", "containers"),
    ("spec", "initContainers"),
    ("spec", "ephemeralContainers"),
    ("spec", "volumes"),
    ("status", "images"),
    ("status", "conditions"),
    ("status", "allocatable"),
    ("status", "capacity"),
    ("status", "volumesAttached"),
    ("status", "volumesInUse"),
    ("status", "containerStatuses"),
    ("status", "initContainerStatuses"),
    ("status", "ephemeralContainerStatuses"),
];

/// A capture's JSON, without the unread fields of its objects (a list's items, or the object).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Level::Root.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// Where a value stands in an object.
#[derive(Clone, Copy)]
enum Level<'a> {
    /// An object's root, or a list's.
    Root,
    /// A list's `items`: each one an object root.
    Items,
    /// A field of the root, whose own fields may be unread.
    Field(&'a str),
    /// `spec.template`: a pod template.
    Template,
    /// `spec.template.spec`.
    PodSpec,
    /// A pod template's list of containers.
    Containers,
    /// One container of a pod template: its name and image are kept.
    Container,
}

/// The container lists of a pod spec.
const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

impl<'de> DeserializeSeed<'de> for Level<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = match self {
                Level::Root if key == "items" => map.next_value_seed(Level::Items)?,
                Level::Root => map.next_value_seed(Level::Field(&key))?,
                Level::Field(parent) if UNREAD.contains(&(parent, key.as_str())) => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                Level::Field("spec") if key == "template" => {
                    map.next_value_seed(Level::Template)?
                }
                Level::Template if key == "spec" => map.next_value_seed(Level::PodSpec)?,
                Level::PodSpec if CONTAINER_LISTS.contains(&key.as_str()) => {
                    map.next_value_seed(Level::Containers)?
                }
                Level::Container if key != "name" && key != "image" => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                // An `items` that is no list is kept as it is, for the reader to report.
                Level::Field(_)
                | Level::Items
                | Level::Template
                | Level::PodSpec
                | Level::Containers
                | Level::Container => map.next_value::<Value>()?,
            };
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let element = match self {
            Level::Items => Level::Root,
            Level::Containers => Level::Container,
            _ => Level::Field(""),
        };
        while let Some(item) = seq.next_element_seed(element)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use serde_json::json;

    #[test]
    fn unread_fields_are_dropped_and_the_rest_is_kept_exactly() {
        let node = json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "a", "managedFields": [{"manager": "kubelet"}], "labels": {"x": "1"}},
            "spec": {"podCIDR": "10.244.1.0/24", "taints": [{"key": "k", "effect": "NoSchedule"}]},
            "status": {
                "images": [{"names": ["i"], "sizeBytes": 1}],
                "conditions": [{"type": "Ready"}],
                "nodeInfo": {"kernelVersion": "10.0.20348.2700"},
                "addresses": [{"type": "InternalIP", "address": "192.168.10.30"}],
            },
            "data": {"status": {"images": "kept: not one level below a root's status"}},
        });
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [node.clone(), node]});
        let parsed = parse(&list.to_string()).unwrap();
        for item in parsed["items"].as_array().unwrap() {
            assert!(item["status"].get("images").is_none());
            assert!(item["status"].get("conditions").is_none());
            assert!(item["metadata"].get("managedFields").is_none());
            assert_eq!(
                item["status"]["nodeInfo"]["kernelVersion"],
                "10.0.20348.2700"
            );
            assert_eq!(item["spec"]["taints"][0]["effect"], "NoSchedule");
            assert_eq!(item["metadata"]["labels"]["x"], "1");
            assert!(item["data"]["status"]["images"].is_string());
        }
        // A pod's containers go; a DaemonSet's template, deeper, stays.
        let pod = json!({"kind": "Pod", "spec": {"nodeName": "a", "containers": [{"name": "c"}]}});
        assert_eq!(
            parse(&pod.to_string()).unwrap(),
            json!({"kind": "Pod", "spec": {"nodeName": "a"}})
        );
        // A DaemonSet's template stays but for its containers' all but name and image.
        let container = json!({"name": "c", "image": "i:1", "env": [{"name": "TOKEN", "value": "s"}], "args": ["-a"]});
        let daemonset = json!({"kind": "DaemonSet", "spec": {"template": {"spec": {
            "containers": [container.clone(), 1],
            "initContainers": [container],
            "tolerations": [{"operator": "Exists"}],
        }}}});
        let kept = json!({"name": "c", "image": "i:1"});
        assert_eq!(
            parse(&daemonset.to_string()).unwrap(),
            json!({"kind": "DaemonSet", "spec": {"template": {"spec": {
                "containers": [kept.clone(), 1],
                "initContainers": [kept],
                "tolerations": [{"operator": "Exists"}],
            }}}})
        );
        // Whatever JSON is, it still is: scalars, nested lists, a non-list `items`.
        for text in [
            "1",
            "\"x\"",
            "null",
            "[1,[2]]",
            "{\"items\":{\"a\":1}}",
            "{\"items\":3}",
        ] {
            assert_eq!(
                parse(text).unwrap(),
                serde_json::from_str::<serde_json::Value>(text).unwrap()
            );
        }
        assert!(parse("{\"items\": [").unwrap_err().is_eof());
    }
}
