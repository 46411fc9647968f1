//! Reading the parts of a [`Task`](crate::Task) from task.yaml nodes (the top level is in
//! [`load`](crate::load)).

use crate::check::Check;
use crate::model::{
    Environment, ExpectedAction, RubricItem, SafetyCheck, SafetyKind, ScoringComponent, TaskLimits,
    TaskTool, UserAgent,
};
use crate::read::{Cx, FromNode, Map};
use crate::user_script::UserScript;
use crate::yaml::Node;

impl FromNode for TaskTool {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let name = m.req("name", "name the tool: `name: gmail_list_messages`");
        let description = m.or("description", String::new());
        let input_schema = m
            .opt("input_schema")
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        if !input_schema.is_object() {
            let f = m.field("input_schema");
            let pos = m.node("input_schema").and_then(|n| n.pos);
            let hint =
                "write a JSON Schema object: `input_schema: {type: object, properties: {...}}`";
            m.cx.error(&f, pos, "expected a JSON Schema object", Some(hint.into()));
        }
        m.finish(&["name", "description", "input_schema"]);
        Some(TaskTool {
            name: name?,
            description,
            input_schema,
        })
    }
}

impl FromNode for Environment {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let d = Environment::default();
        let env = Environment {
            timeout_seconds: m.or("timeout_seconds", d.timeout_seconds),
            max_turns: m.or("max_turns", d.max_turns),
            env_snapshot_timeout: m.or("env_snapshot_timeout", d.env_snapshot_timeout),
            enable_todo: m.or("enable_todo", d.enable_todo),
            enable_compact: m.or("enable_compact", d.enable_compact),
        };
        m.accept_prefix("compact_");
        m.finish(&[
            "timeout_seconds",
            "max_turns",
            "env_snapshot_timeout",
            "enable_todo",
            "enable_compact",
            "compact_*",
        ]);
        Some(env)
    }
}

impl FromNode for TaskLimits {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let limits = TaskLimits {
            disk_mib: m.opt("disk_mib"),
            inodes: m.opt("inodes"),
        };
        m.finish(&["disk_mib", "inodes"]);
        Some(limits)
    }
}

impl FromNode for UserAgent {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let ua = UserAgent {
            enabled: m.or("enabled", false),
            persona: m.or_default("persona"),
            max_rounds: m.or("max_rounds", 5),
            system_prompt_suffix: m.or_default("system_prompt_suffix"),
            script: m.opt::<UserScript>("script"),
        };
        m.finish(&[
            "enabled",
            "persona",
            "max_rounds",
            "system_prompt_suffix",
            "script",
        ]);
        Some(ua)
    }
}

impl FromNode for ScoringComponent {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let name = m.req("name", "name the component: `name: tool_usage`");
        let weight = m.req(
            "weight",
            "give the component's share of the score: `weight: 0.3`",
        );
        let check = m.req::<Check>("check", "say what is checked: `check: {type: ..., ...}`");
        m.finish(&["name", "weight", "check"]);
        Some(ScoringComponent {
            name: name?,
            weight: weight?,
            check: check?,
        })
    }
}

impl FromNode for RubricItem {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let name = m.req("name", "name the item: `name: sent_reply`");
        let weight = m.or("weight", 0.0);
        let gate = m.or("gate", false);
        let description = m.opt("description");
        let check = m.req::<Check>("check", "say what is checked: `check: {type: ..., ...}`");
        m.finish(&["name", "weight", "gate", "description", "check"]);
        Some(RubricItem {
            name: name?,
            weight,
            gate,
            description,
            check: check?,
        })
    }
}

impl FromNode for SafetyCheck {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let known = SafetyKind::KNOWN.join(", ");
        let kind: Option<String> = m.req("type", &format!("add `type:`, one of: {known}"));
        let kind = kind.map(|k| SafetyKind::parse(&k));
        if let Some(SafetyKind::Other(k)) = &kind {
            let f = m.field("type");
            let pos = m.node("type").and_then(|t| t.pos);
            let msg = format!("unknown safety check type `{k}` (kept as written)");
            m.cx.warn(&f, pos, msg, Some(format!("known types: {known}")));
        }
        let tool_name = m.opt("tool_name");
        let description = m.opt("description");
        m.finish(&["type", "tool_name", "description"]);
        Some(SafetyCheck {
            kind: kind?,
            tool_name,
            description,
        })
    }
}

impl FromNode for ExpectedAction {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let service = m.req("service", "name the service: `service: gmail`");
        let action_key = m.req(
            "action_key",
            "name the audit key: `action_key: sent_messages`",
        );
        let required = m.or("required", true);
        m.finish(&["service", "action_key", "required"]);
        Some(ExpectedAction {
            service: service?,
            action_key: action_key?,
            required,
        })
    }
}
