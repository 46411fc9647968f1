//! `ReadMedia` on a picture, as Claw-Eval's `_read_image` answers (Pillow opens it, resizes it
//! to `screen_size`'s larger number with LANCZOS, returns it as PNG) and its dispatcher shows
//! it (JPEG, quality 60, long edge at most 1280, transparency over white).

use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits, RgbImage, RgbaImage};

use super::{Answer, Args, Keep, SHOWN_QUALITY, screen_max, shown_size};
use crate::limits::{MAX_ALLOC, check_dimensions};
use crate::pyjson::Json;

/// The answer for the picture `bytes` read from `path`.
pub fn answer(args: &Args, path: &str, bytes: &[u8], keep: Keep) -> Answer {
    match picture(args, path, bytes, keep) {
        Ok(answer) => answer,
        // As the server: Pillow's exception becomes the answer's `error`.
        Err(message) => Answer {
            body: vec![("error".into(), Json::Str(message))],
            images: Vec::new(),
        },
    }
}

fn picture(args: &Args, path: &str, bytes: &[u8], keep: Keep) -> Result<Answer, String> {
    let unknown = || format!("cannot identify image file '{path}'");
    let mut reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| unknown())?;
    if reader.format().is_none() {
        return Err(unknown());
    }
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC as u64);
    reader.limits(limits);
    let (w, h) = reader.into_dimensions().map_err(|_| unknown())?;
    check_dimensions(i64::from(w), i64::from(h)).map_err(|e| e.replace("video", "image"))?;
    let mut reader = ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| unknown())?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_ALLOC as u64);
    reader.limits(limits);
    let mut img = reader
        .decode()
        .map_err(|e| format!("image file is truncated or damaged ({path}): {e}"))?;
    if let Some(max) = screen_max(args.screen_size.as_deref()) {
        img = fit(img, max);
    }
    let (w, h) = (img.width(), img.height());
    let encoded = match keep {
        Keep::Png => png(&img)?,
        Keep::Shown => shown_jpeg(&img)?,
    };
    let ext = extension(path);
    let body = vec![
        ("media_type".into(), Json::Str("image".into())),
        (
            "metadata".into(),
            Json::Object(vec![
                ("width".into(), Json::Int(i64::from(w))),
                ("height".into(), Json::Int(i64::from(h))),
                ("format".into(), Json::Str(ext.clone())),
            ]),
        ),
        (
            "frames".into(),
            Json::List(vec![Json::Object(vec![
                ("index".into(), Json::Int(0)),
                ("timestamp_s".into(), Json::Float(0.0)),
                ("mime_type".into(), Json::Str("image/png".into())),
            ])]),
        ),
        (
            "text_summary".into(),
            Json::Str(format!("Image: {w}x{h}, {ext}")),
        ),
    ];
    Ok(Answer {
        body,
        images: vec![encoded],
    })
}

/// `_resize_image`: the larger side brought to `max` when it is over it (sides truncated, as
/// `int(w * scale)`), LANCZOS.
fn fit(img: DynamicImage, max: i64) -> DynamicImage {
    let (w, h) = (i64::from(img.width()), i64::from(img.height()));
    if w.max(h) <= max || max <= 0 {
        return img;
    }
    let scale = max as f64 / w.max(h) as f64;
    let nw = ((w as f64 * scale) as u32).max(1);
    let nh = ((h as f64 * scale) as u32).max(1);
    img.resize_exact(nw, nh, FilterType::Lanczos3)
}

/// The picture as PNG, in its own colour mode as Pillow saves it.
pub(super) fn png(img: &DynamicImage) -> Result<Vec<u8>, String> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png)
        .map_err(|e| format!("encoding PNG: {e}"))?;
    Ok(out.into_inner())
}

/// What the model is shown: long edge at most 1280, transparency over white, JPEG quality 60.
pub(super) fn shown_jpeg(img: &DynamicImage) -> Result<Vec<u8>, String> {
    let (w, h) = shown_size(img.width(), img.height());
    let img = if (w, h) == (img.width(), img.height()) {
        img.clone()
    } else {
        img.resize_exact(w, h, FilterType::Lanczos3)
    };
    let rgb = over_white(&img.to_rgba8());
    crate::encode::jpeg(w, h, rgb.as_raw(), SHOWN_QUALITY)
}

/// `rgba` composited over white, as the dispatcher pastes it with its alpha as the mask.
fn over_white(rgba: &RgbaImage) -> RgbImage {
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let mix =
            |c: u8| ((u32::from(c) * u32::from(a) + 255 * (255 - u32::from(a)) + 127) / 255) as u8;
        image::Rgb([mix(r), mix(g), mix(b)])
    })
}

/// `Path(path).suffix.lower()`.
fn extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => name[i..].to_ascii_lowercase(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: &str) -> Args {
        serde_json::from_str(json).unwrap()
    }

    fn picture_png(w: u32, h: u32) -> Vec<u8> {
        let img = RgbaImage::from_fn(w, h, |x, y| {
            image::Rgba([
                (x % 256) as u8,
                (y % 256) as u8,
                128,
                if x < w / 2 { 255 } else { 0 },
            ])
        });
        png(&DynamicImage::ImageRgba8(img)).unwrap()
    }

    #[test]
    fn a_picture_is_answered_as_the_server_answers() {
        let a = answer(
            &args(r#"{"path": "p.PNG"}"#),
            "/w/p.PNG",
            &picture_png(40, 30),
            Keep::Png,
        );
        assert_eq!(
            Json::Object(a.body).dumps(),
            r#"{"media_type": "image", "metadata": {"width": 40, "height": 30, "format": ".png"}, "frames": [{"index": 0, "timestamp_s": 0.0, "mime_type": "image/png"}], "text_summary": "Image: 40x30, .png"}"#
        );
        let back = image::load_from_memory(&a.images[0]).unwrap();
        assert_eq!((back.width(), back.height()), (40, 30));
        assert!(back.color().has_alpha(), "the PNG keeps the picture's mode");
    }

    #[test]
    fn screen_size_shrinks_the_larger_side_and_the_model_sees_jpeg() {
        let a = answer(
            &args(r#"{"path": "p.png", "screen_size": "25x10"}"#),
            "p.png",
            &picture_png(100, 30),
            Keep::Shown,
        );
        assert!(
            a.body
                .iter()
                .any(|(k, v)| k == "text_summary" && *v == Json::Str("Image: 25x7, .png".into()))
        );
        let shown = image::load_from_memory(&a.images[0]).unwrap();
        assert_eq!(
            image::guess_format(&a.images[0]).unwrap(),
            ImageFormat::Jpeg
        );
        assert_eq!((shown.width(), shown.height()), (25, 7));
        let big = answer(
            &args(r#"{"path": "p.png"}"#),
            "p.png",
            &picture_png(2560, 100),
            Keep::Shown,
        );
        let shown = image::load_from_memory(&big.images[0]).unwrap();
        assert_eq!((shown.width(), shown.height()), (1280, 50));
        // the transparent right half is white for the model
        let px = shown.to_rgb8().get_pixel(1270, 25).0;
        assert!(px.iter().all(|c| *c > 240), "{px:?}");
    }

    #[test]
    fn what_is_not_a_picture_is_an_error_answer() {
        let a = answer(
            &args(r#"{"path": "x.bin"}"#),
            "/w/x.bin",
            b"not an image",
            Keep::Png,
        );
        assert_eq!(
            Json::Object(a.body).dumps(),
            r#"{"error": "cannot identify image file '/w/x.bin'"}"#
        );
        let mut cut = picture_png(64, 64);
        cut.truncate(cut.len() / 2);
        let a = answer(&args(r#"{"path": "c.png"}"#), "c.png", &cut, Keep::Png);
        assert!(a.images.is_empty());
    }

    #[test]
    fn a_huge_picture_is_refused_before_it_is_decoded() {
        // A PNG header claiming 30000x30000 pixels, no data.
        let mut header = Vec::new();
        let mut e = ::png::Encoder::new(&mut header, 30000, 30000);
        e.set_color(::png::ColorType::Rgb);
        let mut w = e.write_header().unwrap();
        w.write_chunk(::png::chunk::IDAT, &[0; 16]).unwrap();
        drop(w);
        let a = answer(&args(r#"{"path": "b.png"}"#), "b.png", &header, Keep::Png);
        let text = Json::Object(a.body).dumps();
        assert!(text.contains("30000x30000"), "{text}");
    }
}
