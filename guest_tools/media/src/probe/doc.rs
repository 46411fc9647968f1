//! The probe document: streams and format, each an ordered list of entries.

/// One entry's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A number, printed bare in JSON.
    Int(i64),
    /// Text, quoted in JSON (ffprobe prints most figures as text: `"duration": "30.000000"`).
    Str(String),
    /// Not available: left out of JSON, `N/A` in the other writers.
    NotAvailable,
}

/// Entries in order.
pub type Entries = Vec<(String, Value)>;

/// One stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    /// Its index in the file.
    pub index: usize,
    /// `v`, `a`, `s`, `d` or `t` (for `-select_streams`).
    pub kind: char,
    /// Its position among the streams of its kind.
    pub nth_of_kind: usize,
    /// The stream's entries.
    pub entries: Entries,
    /// `disposition` flags (0 or 1).
    pub disposition: Vec<(String, i64)>,
    /// Container tags.
    pub tags: Vec<(String, String)>,
}

/// The container.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Format {
    /// The format's entries.
    pub entries: Entries,
    /// Container tags.
    pub tags: Vec<(String, String)>,
}

/// A probed file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Doc {
    /// Streams in index order.
    pub streams: Vec<Stream>,
    /// The container.
    pub format: Format,
}

impl Doc {
    /// The first entry `key` of stream `index`.
    pub fn stream_value(&self, index: usize, key: &str) -> Option<&Value> {
        let stream = self.streams.iter().find(|s| s.index == index)?;
        stream
            .entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The format's entry `key`.
    pub fn format_value(&self, key: &str) -> Option<&Value> {
        self.format
            .entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

impl Value {
    /// The value as text (`N/A` when not available).
    pub fn text(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Str(s) => s.clone(),
            Value::NotAvailable => "N/A".into(),
        }
    }

    /// The value as a number, when it is one or text holding one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Str(s) => s.parse().ok(),
            Value::NotAvailable => None,
        }
    }
}
