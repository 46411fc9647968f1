//! The parts of a Claw-Eval `task.yaml` that concern services: `services:` entries and
//! `tool_endpoints:`. (Moved here from `clawrun::services::spec`, which re-exports them.)
//!
//! Their serde behaviour is the one `clawrun::services` relies on; the task loader reads the
//! same shapes from positioned nodes (`FromNode`) to name fields and lines in errors.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use crate::read::{Cx, FromNode, Map, ScalarMap};
use crate::yaml::Node;

/// One `services:` entry of a task.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct ServiceSpec {
    /// The instance name (audit data is keyed by it), e.g. `gmail` or `ocr_t50`.
    pub name: String,
    /// The upstream command, e.g. `python mock_services/ocr/server.py` (names the kind).
    #[serde(default)]
    pub command: Option<String>,
    /// The port the task's URLs use.
    #[serde(default)]
    pub port: Option<u16>,
    /// The readiness probe URL.
    #[serde(default)]
    pub health_check: Option<String>,
    /// The readiness probe method (default `POST`).
    #[serde(default)]
    pub health_check_method: Option<String>,
    /// Seconds to wait for readiness (unused in-process).
    #[serde(default)]
    pub ready_timeout: Option<f64>,
    /// The reset URL (its `/reset` replaced by `/audit` gives the audit URL).
    #[serde(default)]
    pub reset_endpoint: Option<String>,
    /// Environment of the upstream process (fixture paths, `PORT`, ...).
    #[serde(default, deserialize_with = "scalar_map")]
    pub env: BTreeMap<String, String>,
}

impl ServiceSpec {
    /// A spec with just a name (the kind is the name; defaults everywhere else).
    pub fn named(name: &str) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Adds an environment variable.
    pub fn with_env(mut self, var: &str, value: &str) -> Self {
        self.env.insert(var.into(), value.into());
        self
    }

    /// The service kind: the directory of `mock_services/<kind>/server.py` in `command`, else the
    /// name.
    pub fn kind(&self) -> &str {
        self.command
            .as_deref()
            .and_then(|c| {
                c.split_whitespace()
                    .find_map(|w| w.split_once("mock_services/"))
            })
            .and_then(|(_, rest)| rest.split('/').next())
            .filter(|k| !k.is_empty())
            .unwrap_or(&self.name)
    }
}

/// One `tool_endpoints:` entry: the HTTP request behind a tool.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct ToolEndpoint {
    /// The tool's name as the model sees it.
    pub tool_name: String,
    /// The URL, e.g. `http://localhost:9100/gmail/messages`.
    pub url: String,
    /// The method (default `POST`).
    #[serde(default = "post")]
    pub method: String,
}

fn post() -> String {
    "POST".into()
}

/// The service-related sections of a task.yaml.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct TaskServices {
    /// `services:`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub services: Vec<ServiceSpec>,
    /// `tool_endpoints:`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tool_endpoints: Vec<ToolEndpoint>,
}

impl TaskServices {
    /// Reads the `services:` and `tool_endpoints:` sections of a task.yaml (other keys ignored).
    pub fn from_yaml(text: &str) -> Result<Self, serde_saphyr::Error> {
        serde_saphyr::from_str(text)
    }
}

fn null_as_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(
    d: D,
) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A map whose values may be any YAML scalar, kept as text (`PORT: 9117` and `PORT: "9117"`
/// both give `"9117"`).
fn scalar_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    struct Scalar(String);
    impl<'de> Deserialize<'de> for Scalar {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Scalar;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a scalar")
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                    Ok(Scalar(v.into()))
                }
                fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                    Ok(Scalar(v.to_string()))
                }
                fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                    Ok(Scalar(v.to_string()))
                }
                fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                    Ok(Scalar(v.to_string()))
                }
                fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                    Ok(Scalar(if v { "True" } else { "False" }.into()))
                }
                fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                    Ok(Scalar(String::new()))
                }
            }
            d.deserialize_any(V)
        }
    }
    let m = Option::<BTreeMap<String, Scalar>>::deserialize(d)?.unwrap_or_default();
    Ok(m.into_iter().map(|(k, v)| (k, v.0)).collect())
}

/// Fields of a `services:` entry.
pub(crate) const SERVICE_FIELDS: &[&str] = &[
    "name",
    "command",
    "port",
    "health_check",
    "health_check_method",
    "ready_timeout",
    "reset_endpoint",
    "env",
];

impl FromNode for ServiceSpec {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let name = m.req(
            "name",
            "give the service instance a name, e.g. `name: gmail`",
        );
        let port = m.opt::<u64>("port").and_then(|p| match u16::try_from(p) {
            Ok(p) => Some(p),
            Err(_) => {
                let f = m.field("port");
                let pos = m.node("port").and_then(|n| n.pos);
                m.cx.error(
                    &f,
                    pos,
                    format!("port {p} is out of range"),
                    Some("use 1-65535".into()),
                );
                None
            }
        });
        let spec = ServiceSpec {
            name: name.unwrap_or_default(),
            command: m.opt("command"),
            port,
            health_check: m.opt("health_check"),
            health_check_method: m.opt("health_check_method"),
            ready_timeout: m.opt("ready_timeout"),
            reset_endpoint: m.opt("reset_endpoint"),
            env: m.or_default::<ScalarMap>("env").0,
        };
        m.finish(SERVICE_FIELDS);
        Some(spec)
    }
}

impl FromNode for ToolEndpoint {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let tool_name = m.req("tool_name", "name the tool this endpoint serves");
        let url = m.req(
            "url",
            "give the service URL, e.g. `url: http://localhost:9100/gmail/messages`",
        );
        let method = m.or("method", post());
        m.finish(&["tool_name", "url", "method"]);
        Some(ToolEndpoint {
            tool_name: tool_name?,
            url: url?,
            method,
        })
    }
}
