//! A loopback stand-in for a Kubernetes API server, enough for `kubectl get ... -o json` and
//! `kubectl patch node`: legacy discovery (`/api`, `/apis`, the `v1` and `apps/v1` resource
//! lists), lists of nodes, pods and DaemonSets, nodes and ConfigMaps by name (404 `Status` when
//! absent), served from captured objects; and JSON merge patches of a Node (RFC 7386), refused as
//! the API server refuses them when they change a pod subnet already set (`ValidateNodeUpdate`,
//! kubernetes/kubernetes `pkg/apis/core/validation/validation.go`). Every request is recorded, so
//! a test can assert what kubectl asked for. Each response closes its connection; the server
//! stops when dropped.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub struct ApiServer {
    pub port: u16,
    /// `METHOD path` of every request, in arrival order.
    pub requests: Arc<Mutex<Vec<String>>>,
    /// The objects served, as patched.
    pub objects: Arc<Mutex<Vec<Value>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ApiServer {
    /// Serves `objects` (Nodes, Pods, DaemonSets, ConfigMaps) on 127.0.0.1, on a free port.
    pub fn start(objects: Vec<Value>) -> ApiServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let objects = Arc::new(Mutex::new(objects));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (requests, objects, stop) = (requests.clone(), objects.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve(stream, &objects, &requests);
                    }
                }
            })
        };
        ApiServer {
            port,
            requests,
            objects,
            stop,
            thread: Some(thread),
        }
    }

    /// A kubeconfig whose current context is this server, without credentials.
    pub fn kubeconfig(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: loopback\n  cluster:\n    server: http://127.0.0.1:{}\ncontexts:\n- name: loopback\n  context:\n    cluster: loopback\n    user: nobody\ncurrent-context: loopback\nusers:\n- name: nobody\n  user: {{}}\n",
            self.port
        )
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, objects: &Mutex<Vec<Value>>, requests: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(&stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Headers end at the first empty line; the body, when there is one, is Content-Length long.
    let mut header = String::new();
    let mut length = 0usize;
    while reader.read_line(&mut header).is_ok_and(|read| read > 2) {
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        header.clear();
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method.is_empty() {
        return;
    }
    let path = target.split('?').next().unwrap_or(target);
    requests.lock().unwrap().push(format!("{method} {path}"));
    let (status, body) = match method {
        "GET" => respond(path, &objects.lock().unwrap()),
        "PATCH" => patch(path, &body, &mut objects.lock().unwrap()),
        _ => (405, status_body(405, "MethodNotAllowed", "not served here")),
    };
    let body = body.to_string();
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        422 => "Unprocessable Entity",
        _ => "Method Not Allowed",
    };
    let mut stream = &stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn respond(path: &str, objects: &[Value]) -> (u16, Value) {
    let of_kind = |kind: &str| -> Vec<Value> {
        objects
            .iter()
            .filter(|object| object["kind"] == kind)
            .cloned()
            .collect()
    };
    let list = |kind: &str, api_version: &str| {
        json!({
            "kind": format!("{kind}List"),
            "apiVersion": api_version,
            "metadata": {"resourceVersion": "1"},
            "items": of_kind(kind),
        })
    };
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments[..] {
        ["api"] => (200, json!({"kind": "APIVersions", "versions": ["v1"]})),
        ["apis"] => (
            200,
            json!({
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [{
                    "name": "apps",
                    "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                    "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
                }],
            }),
        ),
        ["api", "v1"] => (
            200,
            resources(
                "v1",
                &[
                    ("nodes", "Node", false, "no"),
                    ("pods", "Pod", true, "po"),
                    ("configmaps", "ConfigMap", true, "cm"),
                ],
            ),
        ),
        ["apis", "apps", "v1"] => (
            200,
            resources("apps/v1", &[("daemonsets", "DaemonSet", true, "ds")]),
        ),
        ["api", "v1", "nodes"] => (200, list("Node", "v1")),
        ["api", "v1", "nodes", name] => of_kind("Node")
            .into_iter()
            .find(|node| node["metadata"]["name"] == name)
            .map_or_else(
                || {
                    let message = format!("nodes \"{name}\" not found");
                    (404, status_body(404, "NotFound", &message))
                },
                |node| (200, node),
            ),
        ["api", "v1", "pods"] => (200, list("Pod", "v1")),
        ["apis", "apps", "v1", "daemonsets"] => (200, list("DaemonSet", "apps/v1")),
        ["api", "v1", "namespaces", namespace, "configmaps", name] => of_kind("ConfigMap")
            .into_iter()
            .find(|map| {
                map["metadata"]["namespace"] == namespace && map["metadata"]["name"] == name
            })
            .map_or_else(
                || {
                    let message = format!("configmaps \"{name}\" not found");
                    (404, status_body(404, "NotFound", &message))
                },
                |map| (200, map),
            ),
        _ => (
            404,
            status_body(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ),
        ),
    }
}

/// `PATCH /api/v1/nodes/NAME` with a JSON merge patch: the node as patched, or the `Status` the
/// API server answers when the patch would change a pod subnet already set.
fn patch(path: &str, body: &[u8], objects: &mut [Value]) -> (u16, Value) {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let ["api", "v1", "nodes", name] = segments[..] else {
        return (
            405,
            status_body(405, "MethodNotAllowed", "only nodes are patched"),
        );
    };
    let Some(node) = objects
        .iter_mut()
        .find(|object| object["kind"] == "Node" && object["metadata"]["name"] == name)
    else {
        let message = format!("nodes \"{name}\" not found");
        return (404, status_body(404, "NotFound", &message));
    };
    let Ok(change) = serde_json::from_slice::<Value>(body) else {
        return (405, status_body(405, "BadRequest", "the patch is not JSON"));
    };
    let mut patched = node.clone();
    merge(&mut patched, &change);
    let subnets = |node: &Value| {
        node["spec"]["podCIDRs"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    if !subnets(node).is_empty() && subnets(node) != subnets(&patched) {
        let message = format!(
            "Node \"{name}\" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid"
        );
        return (422, status_body(422, "Invalid", &message));
    }
    *node = patched.clone();
    (200, patched)
}

/// RFC 7386: objects merge key by key, `null` removes a key, anything else replaces.
fn merge(target: &mut Value, change: &Value) {
    let Value::Object(changes) = change else {
        *target = change.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    if let Value::Object(fields) = target {
        for (key, value) in changes {
            if value.is_null() {
                fields.remove(key);
            } else {
                merge(fields.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
    }
}

fn resources(group_version: &str, resources: &[(&str, &str, bool, &str)]) -> Value {
    let resources: Vec<Value> = resources
        .iter()
        .map(|(name, kind, namespaced, short)| {
            json!({
                "name": name,
                "singularName": kind.to_lowercase(),
                "namespaced": namespaced,
                "kind": kind,
                "verbs": ["get", "list"],
                "shortNames": [short],
            })
        })
        .collect();
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": resources,
    })
}

fn status_body(code: u16, reason: &str, message: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    })
}
