//! The probe document of an opened input, entry by entry as `ffprobe` (FFmpeg 5/7) prints
//! `-show_streams` and `-show_format`.

use ffmpeg_wasi::avformat as f;

use super::doc::{Doc, Format, Stream, Value};
use crate::ff::decoder::Decoder;
use crate::ff::input::{Input, NOPTS};
use crate::ff::names::{self, Color};
use crate::time::seconds_f64_text;

/// `AV_FIELD_PROGRESSIVE` .. `AV_FIELD_BT`.
const FIELD_ORDERS: [&str; 5] = ["progressive", "tt", "bb", "tb", "bt"];
/// `FF_CODEC_PROPERTY_CLOSED_CAPTIONS`, `FF_CODEC_PROPERTY_FILM_GRAIN`.
const PROPERTY_CLOSED_CAPTIONS: u32 = 2;
const PROPERTY_FILM_GRAIN: u32 = 4;
/// `ffprobe`'s disposition flags, in its order, with their bits.
const DISPOSITIONS: [(&str, i32); 17] = [
    ("default", 0x1),
    ("dub", 0x2),
    ("original", 0x4),
    ("comment", 0x8),
    ("lyrics", 0x10),
    ("karaoke", 0x20),
    ("forced", 0x40),
    ("hearing_impaired", 0x80),
    ("visual_impaired", 0x100),
    ("clean_effects", 0x200),
    ("attached_pic", 0x400),
    ("timed_thumbnails", 0x800),
    ("captions", 0x10000),
    ("descriptions", 0x20000),
    ("metadata", 0x40000),
    ("dependent", 0x80000),
    ("still_image", 0x100000),
];

fn rational(r: f::AVRational) -> String {
    format!("{}/{}", r.num, r.den)
}

/// `ts` in `tb` as ffprobe's `print_time` prints it (`%f` of ts * av_q2d(tb)).
fn time(ts: i64, tb: f::AVRational) -> Value {
    if ts == NOPTS || tb.den == 0 {
        Value::NotAvailable
    } else {
        Value::Str(seconds_f64_text(
            ts as f64 * (f64::from(tb.num) / f64::from(tb.den)),
        ))
    }
}

fn ts(ts: i64) -> Value {
    if ts == NOPTS {
        Value::NotAvailable
    } else {
        Value::Int(ts)
    }
}

fn positive(v: i64) -> Value {
    if v > 0 {
        Value::Str(v.to_string())
    } else {
        Value::NotAvailable
    }
}

fn opt(v: Option<String>) -> Value {
    v.map_or(Value::NotAvailable, Value::Str)
}

/// The document of `input`, whose file was named `filename` on the command line.
pub fn document(input: &Input, filename: &str) -> Doc {
    let mut counts = [0usize; 5];
    let streams = (0..input.streams().len())
        .map(|i| {
            let mut s = stream(input, i);
            let slot = "vasdt".find(s.kind).unwrap_or(3);
            s.nth_of_kind = counts[slot];
            counts[slot] += 1;
            s
        })
        .collect();
    Doc {
        streams,
        format: format(input, filename),
    }
}

fn stream(input: &Input, index: usize) -> Stream {
    let st = input.stream(index);
    // SAFETY: the parameters of a stream of a live input.
    let par = unsafe { &*st.codecpar };
    let decoder = Decoder::open(st).ok();
    let dec = decoder.as_ref().map(|d| d.ctx());
    let mut e: Vec<(String, Value)> = Vec::new();
    let mut put = |k: &str, v: Value| e.push((k.to_owned(), v));
    put("index", Value::Int(index as i64));
    put("codec_name", Value::Str(names::codec(par.codec_id)));
    put("codec_long_name", opt(names::codec_long(par.codec_id)));
    put(
        "profile",
        match names::profile(par.codec_id, par.profile) {
            Some(p) => Value::Str(p),
            None if par.profile != -99 => Value::Str(par.profile.to_string()),
            None => Value::NotAvailable,
        },
    );
    let kind = names::media_type(par.codec_type);
    put("codec_type", opt(kind.clone()));
    put("codec_tag_string", Value::Str(names::fourcc(par.codec_tag)));
    put("codec_tag", Value::Str(format!("0x{:04x}", par.codec_tag)));
    match par.codec_type {
        f::AVMediaType_AVMEDIA_TYPE_VIDEO => {
            put("width", Value::Int(par.width.into()));
            put("height", Value::Int(par.height.into()));
            let (cw, ch) = dec.map_or((0, 0), |d| (d.coded_width, d.coded_height));
            put(
                "coded_width",
                Value::Int(if cw > 0 { cw } else { par.width }.into()),
            );
            put(
                "coded_height",
                Value::Int(if ch > 0 { ch } else { par.height }.into()),
            );
            let props = dec.map_or(0, |d| d.properties);
            put(
                "closed_captions",
                Value::Int(i64::from(props & PROPERTY_CLOSED_CAPTIONS != 0)),
            );
            put(
                "film_grain",
                Value::Int(i64::from(props & PROPERTY_FILM_GRAIN != 0)),
            );
            put("has_b_frames", Value::Int(par.video_delay.into()));
            // SAFETY: a live input and one of its streams.
            let sar = unsafe {
                f::av_guess_sample_aspect_ratio(
                    input.ctx() as *const _ as *mut _,
                    input.streams()[index],
                    std::ptr::null_mut(),
                )
            };
            if sar.num > 0 {
                put(
                    "sample_aspect_ratio",
                    Value::Str(format!("{}:{}", sar.num, sar.den)),
                );
                let (mut dn, mut dd) = (0, 0);
                // SAFETY: av_reduce writes the two outputs.
                unsafe {
                    f::av_reduce(
                        &mut dn,
                        &mut dd,
                        i64::from(par.width) * i64::from(sar.num),
                        i64::from(par.height) * i64::from(sar.den),
                        1024 * 1024,
                    );
                }
                put("display_aspect_ratio", Value::Str(format!("{dn}:{dd}")));
            }
            put("pix_fmt", opt(names::pix_fmt(par.format)));
            put("level", Value::Int(par.level.into()));
            put(
                "color_range",
                opt(names::color(Color::Range, par.color_range as i32)),
            );
            put(
                "color_space",
                opt(names::color(Color::Space, par.color_space as i32)),
            );
            put(
                "color_transfer",
                opt(names::color(Color::Transfer, par.color_trc as i32)),
            );
            put(
                "color_primaries",
                opt(names::color(Color::Primaries, par.color_primaries as i32)),
            );
            put(
                "chroma_location",
                opt(names::color(Color::Location, par.chroma_location as i32)),
            );
            let field = par.field_order as usize;
            put(
                "field_order",
                match field.checked_sub(1).and_then(|i| FIELD_ORDERS.get(i)) {
                    Some(name) => Value::Str((*name).into()),
                    None => Value::NotAvailable,
                },
            );
            put("refs", Value::Int(dec.map_or(1, |d| d.refs).into()));
            if par.codec_id == f::AVCodecID_AV_CODEC_ID_H264 {
                let extra = extradata(par);
                let avc = extra.first() == Some(&1);
                put(
                    "is_avc",
                    Value::Str(if avc { "true" } else { "false" }.into()),
                );
                let nal = if avc && extra.len() > 4 {
                    (extra[4] & 3) + 1
                } else {
                    0
                };
                put("nal_length_size", Value::Str(nal.to_string()));
            }
        }
        f::AVMediaType_AVMEDIA_TYPE_AUDIO => {
            put("sample_fmt", opt(names::sample_fmt(par.format)));
            put("sample_rate", positive(par.sample_rate.into()));
            put("channels", Value::Int(par.ch_layout.nb_channels.into()));
            // A layout of unspecified order (`AV_CHANNEL_ORDER_UNSPEC`, 0) is "unknown": hidden.
            let layout = (par.ch_layout.order != 0)
                .then(|| names::channel_layout(&par.ch_layout))
                .flatten();
            put("channel_layout", opt(layout));
            // SAFETY: a pure function of the codec id.
            let bits = unsafe { f::av_get_bits_per_sample(par.codec_id) };
            put("bits_per_sample", Value::Int(bits.into()));
        }
        _ => {}
    }
    // SAFETY: a live input's format.
    let show_ids = unsafe { (*input.ctx().iformat).flags } as u32 & f::AVFMT_SHOW_IDS != 0;
    put(
        "id",
        if show_ids {
            Value::Str(format!("0x{:x}", st.id))
        } else {
            Value::NotAvailable
        },
    );
    put("r_frame_rate", Value::Str(rational(st.r_frame_rate)));
    put("avg_frame_rate", Value::Str(rational(st.avg_frame_rate)));
    put("time_base", Value::Str(rational(st.time_base)));
    put("start_pts", ts(st.start_time));
    put("start_time", time(st.start_time, st.time_base));
    put("duration_ts", ts(st.duration));
    put("duration", time(st.duration, st.time_base));
    put("bit_rate", positive(par.bit_rate));
    put("max_bit_rate", positive(dec.map_or(0, |d| d.rc_max_rate)));
    put(
        "bits_per_raw_sample",
        positive(
            dec.map_or(par.bits_per_raw_sample, |d| d.bits_per_raw_sample)
                .into(),
        ),
    );
    put("nb_frames", positive(st.nb_frames));
    if par.extradata_size > 0 {
        put("extradata_size", Value::Int(par.extradata_size.into()));
    }
    let kind = match par.codec_type {
        f::AVMediaType_AVMEDIA_TYPE_VIDEO => 'v',
        f::AVMediaType_AVMEDIA_TYPE_AUDIO => 'a',
        f::AVMediaType_AVMEDIA_TYPE_SUBTITLE => 's',
        f::AVMediaType_AVMEDIA_TYPE_ATTACHMENT => 't',
        _ => 'd',
    };
    Stream {
        index,
        kind,
        nth_of_kind: 0,
        entries: e,
        disposition: DISPOSITIONS
            .iter()
            .map(|(k, bit)| ((*k).to_owned(), i64::from(st.disposition & bit != 0)))
            .collect(),
        // SAFETY: the stream's dictionary lives with the input.
        tags: unsafe { names::dictionary(st.metadata) },
    }
}

fn extradata(par: &f::AVCodecParameters) -> &[u8] {
    if par.extradata.is_null() || par.extradata_size <= 0 {
        return &[];
    }
    // SAFETY: `extradata` holds `extradata_size` bytes owned by the stream.
    unsafe { std::slice::from_raw_parts(par.extradata, par.extradata_size as usize) }
}

fn format(input: &Input, filename: &str) -> Format {
    let ctx = input.ctx();
    // SAFETY: an opened input's format descriptor.
    let iformat = unsafe { &*ctx.iformat };
    let us = f::AVRational {
        num: 1,
        den: 1_000_000,
    };
    // SAFETY: the input's I/O context (null for formats without one).
    let size = if ctx.pb.is_null() {
        -1
    } else {
        unsafe { f::avio_size(ctx.pb) }
    };
    // SAFETY: static strings of the format descriptor.
    let (name, long_name) = unsafe {
        (
            crate::ff::text_of(iformat.name),
            crate::ff::text_of(iformat.long_name),
        )
    };
    let entries = vec![
        ("filename".to_owned(), Value::Str(filename.to_owned())),
        ("nb_streams".to_owned(), Value::Int(ctx.nb_streams.into())),
        ("nb_programs".to_owned(), Value::Int(ctx.nb_programs.into())),
        ("format_name".to_owned(), Value::Str(name)),
        (
            "format_long_name".to_owned(),
            opt((!long_name.is_empty()).then_some(long_name)),
        ),
        ("start_time".to_owned(), time(ctx.start_time, us)),
        ("duration".to_owned(), time(ctx.duration, us)),
        ("size".to_owned(), positive(size)),
        ("bit_rate".to_owned(), positive(ctx.bit_rate)),
        ("probe_score".to_owned(), Value::Int(ctx.probe_score.into())),
    ];
    Format {
        entries,
        // SAFETY: the format's dictionary lives with the input.
        tags: unsafe { names::dictionary(ctx.metadata) },
    }
}
