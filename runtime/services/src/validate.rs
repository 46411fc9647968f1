//! Request bodies as FastAPI + pydantic 2 (lax mode) read them: body decoding, field coercion,
//! defaults, and the exact 422 error bodies.

use super::excerpt::excerpt_json;
use super::http::{ServiceRequest, ServiceResponse};
use super::json::{self, DecodeError, Json, Obj, obj};

/// The type of a body field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `str`.
    Str,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `list[str]`.
    StrList,
}

/// A constant default value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// `None`.
    Null,
    /// A bool.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(&'static str),
    /// `[]`.
    EmptyList,
}

impl Lit {
    /// The value as JSON.
    pub fn to_json(self) -> Json {
        match self {
            Lit::Null => Json::Null,
            Lit::Bool(b) => Json::Bool(b),
            Lit::Int(i) => Json::Int(i),
            Lit::Str(s) => Json::from(s),
            Lit::EmptyList => Json::Array(Vec::new()),
        }
    }
}

/// A declared body field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// The field name.
    pub name: &'static str,
    /// Its type.
    pub ty: Ty,
    /// Whether `null` is accepted (`T | None`).
    pub nullable: bool,
    /// The default; `None` for a required field.
    pub default: Option<Lit>,
}

impl Field {
    /// A required, non-nullable field.
    pub const fn req(name: &'static str, ty: Ty) -> Self {
        Self {
            name,
            ty,
            nullable: false,
            default: None,
        }
    }

    /// A non-nullable field with a default.
    pub const fn def(name: &'static str, ty: Ty, default: Lit) -> Self {
        Self {
            name,
            ty,
            nullable: false,
            default: Some(default),
        }
    }

    /// A nullable field defaulting to `null` (`T | None = None`).
    pub const fn opt(name: &'static str, ty: Ty) -> Self {
        Self {
            name,
            ty,
            nullable: true,
            default: Some(Lit::Null),
        }
    }
}

/// How an endpoint treats its body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyMode {
    /// A JSON object is required (empty body or `null` is a 422).
    Required,
    /// An empty body or `null` means "all defaults" (`overrides` replace field defaults then).
    Optional {
        /// Values used instead of field defaults when no body is sent.
        overrides: &'static [(&'static str, Lit)],
    },
    /// The body is ignored (GET endpoints, reset).
    Ignored,
}

/// One pydantic error; a long `input` is cut to an excerpt.
fn err(kind: &str, loc: Vec<Json>, msg: &str, input: Json) -> Json {
    let input = excerpt_json(input);
    Json::Object(obj! { "type" => kind, "loc" => Json::Array(loc), "msg" => msg, "input" => input })
}

fn unprocessable(errors: Vec<Json>) -> ServiceResponse {
    ServiceResponse::json(422, obj! { "detail" => Json::Array(errors) })
}

fn body_loc(field: Option<&str>) -> Vec<Json> {
    let mut loc = vec![Json::from("body")];
    if let Some(f) = field {
        loc.push(Json::from(f));
    }
    loc
}

/// What a request body decodes to before validation (FastAPI's `body`).
fn received_body(req: &ServiceRequest) -> Result<Option<Json>, ServiceResponse> {
    if req.body.is_empty() {
        return Ok(None);
    }
    if let Some(ct) = req.headers.get("content-type")
        && !is_json_content_type(ct)
    {
        // FastAPI hands the raw bytes to pydantic, which reports them (decoded) as the input.
        return match std::str::from_utf8(&req.body) {
            Ok(s) => Ok(Some(Json::from(s))),
            Err(_) => Err(ServiceResponse::internal_error()),
        };
    }
    match json::decode_body(&req.body) {
        Ok(v) => Ok(Some(v)),
        Err(DecodeError::Syntax(e)) => {
            let mut loc = body_loc(None);
            loc.push(Json::from(e.pos));
            let mut detail = err(
                "json_invalid",
                loc,
                "JSON decode error",
                Json::Object(Obj::new()),
            );
            if let Json::Object(o) = &mut detail {
                o.push("ctx", obj! { "error" => e.msg });
            }
            Err(unprocessable(vec![detail]))
        }
        Err(DecodeError::Encoding | DecodeError::TooDeep) => Err(ServiceResponse::detail(
            400,
            "There was an error parsing the body",
        )),
    }
}

/// `email.message` content-type parsing as FastAPI uses it: `application/json` or
/// `application/*+json` (case-insensitive, parameters ignored; a malformed value counts as
/// `text/plain`).
fn is_json_content_type(ct: &str) -> bool {
    let main = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let Some((maintype, subtype)) = main.split_once('/') else {
        return false;
    };
    if subtype.contains('/') {
        return false;
    }
    maintype == "application" && (subtype == "json" || subtype.ends_with("+json"))
}

/// Validates `req`'s body against `fields`: the validated request (every field, declaration
/// order, coerced, defaults filled in) or the error response FastAPI would send.
pub fn validate(
    req: &ServiceRequest,
    mode: BodyMode,
    fields: &[Field],
) -> Result<Obj, ServiceResponse> {
    if mode == BodyMode::Ignored {
        return Ok(Obj::new());
    }
    let body = received_body(req)?;
    let body = match (body, mode) {
        (None | Some(Json::Null), BodyMode::Optional { overrides }) => {
            let mut out = Obj::with_capacity(fields.len());
            for f in fields {
                let lit = overrides
                    .iter()
                    .find(|(n, _)| *n == f.name)
                    .map(|(_, l)| *l)
                    .or(f.default)
                    .unwrap_or(Lit::Null);
                out.push(f.name, lit.to_json());
            }
            return Ok(out);
        }
        (None | Some(Json::Null), _) => {
            return Err(unprocessable(vec![err(
                "missing",
                body_loc(None),
                "Field required",
                Json::Null,
            )]));
        }
        (Some(Json::Object(o)), _) => o,
        (Some(other), _) => {
            return Err(unprocessable(vec![err(
                "model_attributes_type",
                body_loc(None),
                "Input should be a valid dictionary or object to extract fields from",
                other,
            )]));
        }
    };
    let mut out = Obj::with_capacity(fields.len());
    let mut errors = Vec::new();
    for f in fields {
        match body.get(f.name) {
            None => match f.default {
                Some(lit) => out.push(f.name, lit.to_json()),
                None => errors.push(err(
                    "missing",
                    body_loc(Some(f.name)),
                    "Field required",
                    Json::Object(body.clone()),
                )),
            },
            Some(Json::Null) if f.nullable => out.push(f.name, Json::Null),
            Some(v) => match coerce(f.ty, v, f.name, &mut errors) {
                Some(c) => out.push(f.name, c),
                None => continue,
            },
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(unprocessable(errors))
    }
}

/// Coerces `v` to `ty` (pydantic lax mode), recording errors.
fn coerce(ty: Ty, v: &Json, name: &str, errors: &mut Vec<Json>) -> Option<Json> {
    let fail = |errors: &mut Vec<Json>, kind: &str, msg: &str| {
        errors.push(err(kind, body_loc(Some(name)), msg, v.clone()));
        None
    };
    match ty {
        Ty::Str => match v {
            Json::Str(_) => Some(v.clone()),
            _ => fail(errors, "string_type", "Input should be a valid string"),
        },
        Ty::Int => match coerce_int(v) {
            Ok(i) => Some(i),
            Err((kind, msg)) => fail(errors, kind, msg),
        },
        Ty::Float => match coerce_float(v) {
            Ok(f) => Some(Json::Float(f)),
            Err((kind, msg)) => fail(errors, kind, msg),
        },
        Ty::Bool => match coerce_bool(v) {
            Ok(b) => Some(Json::Bool(b)),
            Err((kind, msg)) => fail(errors, kind, msg),
        },
        Ty::StrList => match v {
            Json::Array(items) => {
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    if !matches!(item, Json::Str(_)) {
                        ok = false;
                        let mut loc = body_loc(Some(name));
                        loc.push(Json::from(i));
                        errors.push(err(
                            "string_type",
                            loc,
                            "Input should be a valid string",
                            item.clone(),
                        ));
                    }
                }
                ok.then(|| v.clone())
            }
            _ => fail(errors, "list_type", "Input should be a valid list"),
        },
    }
}

type Problem = (&'static str, &'static str);

const INT_TYPE: Problem = ("int_type", "Input should be a valid integer");
const INT_PARSING: Problem = (
    "int_parsing",
    "Input should be a valid integer, unable to parse string as an integer",
);
const INT_SIZE: Problem = (
    "int_parsing_size",
    "Unable to parse input string as an integer, exceeded maximum size",
);

fn coerce_int(v: &Json) -> Result<Json, Problem> {
    match v {
        Json::Int(_) | Json::BigInt(_) => Ok(v.clone()),
        Json::Bool(b) => Ok(Json::Int(i64::from(*b))),
        Json::Float(f) => {
            if !f.is_finite() {
                Err(("finite_number", "Input should be a finite number"))
            } else if f.fract() != 0.0 {
                Err((
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                ))
            } else if *f >= 9_223_372_036_854_775_808.0 || *f < -9_223_372_036_854_775_808.0 {
                Err(INT_SIZE)
            } else {
                Ok(Json::Int(*f as i64))
            }
        }
        Json::Str(s) => {
            let s = s.trim();
            if s.len() > 4300 {
                return Err(INT_SIZE);
            }
            if let Some(i) = int_str(s) {
                return Ok(i);
            }
            match s.split_once('.') {
                Some((int, frac)) if !frac.is_empty() && frac.bytes().all(|c| c == b'0') => {
                    int_str(int).ok_or(INT_PARSING)
                }
                _ => Err(INT_PARSING),
            }
        }
        _ => Err(INT_TYPE),
    }
}

/// Removes underscores that sit between two digits; `None` if any other underscore is present.
fn strip_underscores(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !s.contains('_') {
        return Some(s.into());
    }
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' && (i == 0 || i + 1 == b.len() || b[i - 1] == b'_' || b[i + 1] == b'_') {
            return None;
        }
    }
    Some(s.replace('_', "").into())
}

fn int_str(s: &str) -> Option<Json> {
    let s = strip_underscores(s)?;
    let digits = s.strip_prefix(['+', '-']).unwrap_or(&s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(json::int_from_digits(&s))
}

fn coerce_float(v: &Json) -> Result<f64, Problem> {
    const FLOAT_TYPE: Problem = ("float_type", "Input should be a valid number");
    match v {
        Json::Float(f) => Ok(*f),
        Json::Int(i) => Ok(*i as f64),
        Json::BigInt(d) => d
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .ok_or(FLOAT_TYPE),
        Json::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Json::Str(s) => strip_underscores(s.trim())
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or((
                "float_parsing",
                "Input should be a valid number, unable to parse string as a number",
            )),
        _ => Err(FLOAT_TYPE),
    }
}

fn coerce_bool(v: &Json) -> Result<bool, Problem> {
    const BOOL_TYPE: Problem = ("bool_type", "Input should be a valid boolean");
    const BOOL_PARSING: Problem = (
        "bool_parsing",
        "Input should be a valid boolean, unable to interpret input",
    );
    match v {
        Json::Bool(b) => Ok(*b),
        Json::Int(0) => Ok(false),
        Json::Int(1) => Ok(true),
        Json::Int(_) => Err(BOOL_PARSING),
        Json::Float(f) if *f == 0.0 => Ok(false),
        Json::Float(f) if *f == 1.0 => Ok(true),
        Json::Float(f)
            if f.fract() == 0.0
                && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(f) =>
        {
            Err(BOOL_PARSING)
        }
        Json::Str(s) => match s.to_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Ok(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Ok(true),
            _ => Err(BOOL_PARSING),
        },
        _ => Err(BOOL_TYPE),
    }
}
