//! `ReadMedia` on a PDF, as Claw-Eval's `_read_pdf` answers: the pages `pdf_pages` picks
//! (`all`, `N`, `A-B`, or `A,B,C`, parsed as its code parses them) rendered at `dpi` (100) as
//! pdf2image renders them (white paper, RGB), each a frame stamped 0.0; `metadata`
//! `{page_count, dpi}` counting the pages rendered; a PDF that cannot be read is answered with
//! its `metadata.error` and no frames. Rendered by `hayro` (pure Rust, the standard 14 fonts
//! embedded) inside the sandbox, under the call's fuel and memory limit.

use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_interpret::util::TransformExt;
use hayro::hayro_syntax::Pdf;
use hayro::kurbo::Affine;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::vello_cpu::{Pixmap, RasterizerSettings, RenderContext, Resources, TargetInit};
use hayro::{RenderCache, RenderSettings};
use image::{DynamicImage, RgbImage};

use super::image::{png, shown_jpeg};
use super::{Answer, Args, Keep};
use crate::limits::{MAX_FRAMES, check_dimensions};
use crate::pyjson::Json;

/// Which pages `spec` asks for, 1-based, out of `count`; `Err` is Python's `int()` error.
pub fn pages(spec: &str, count: usize) -> Result<Vec<usize>, String> {
    let int = |s: &str| -> Result<i64, String> {
        let t = s.trim().replace('_', "");
        t.parse::<i64>()
            .map_err(|_| format!("invalid literal for int() with base 10: '{s}'"))
    };
    let range = |first: i64, last: i64| -> Vec<usize> {
        let first = first.max(1) as usize;
        let last = usize::try_from(last).unwrap_or(0).min(count);
        (first..=last).collect()
    };
    if spec == "all" {
        return Ok((1..=count).collect());
    }
    if spec.contains('-') {
        let parts: Vec<&str> = spec.split('-').collect();
        let last = parts.get(1).copied().unwrap_or("");
        return Ok(range(int(parts[0])?, int(last)?));
    }
    if spec.contains(',') {
        // pdf2image renders every page, then the comma list picks (bad ones leave all pages).
        let picked: Result<Vec<i64>, String> = spec.split(',').map(int).collect();
        return Ok(match picked {
            Ok(nums) => nums
                .into_iter()
                .filter_map(|n| usize::try_from(n).ok().filter(|n| (1..=count).contains(n)))
                .collect(),
            Err(_) => (1..=count).collect(),
        });
    }
    let n = int(spec)?;
    Ok(range(n, n))
}

/// The answer for the PDF `bytes` read from `path`.
pub fn answer(args: &Args, bytes: Vec<u8>, keep: Keep) -> Answer {
    let dpi = args.dpi;
    let failed = |message: String| Answer {
        body: vec![
            ("media_type".into(), Json::Str("pdf".into())),
            (
                "metadata".into(),
                Json::Object(vec![("error".into(), Json::Str(message.clone()))]),
            ),
            ("frames".into(), Json::List(Vec::new())),
            (
                "text_summary".into(),
                Json::Str(format!("PDF render failed: {message}")),
            ),
        ],
        images: Vec::new(),
    };
    let pdf = match Pdf::new(bytes) {
        Ok(pdf) => pdf,
        Err(e) => return failed(format!("Unable to get page count. ({e:?})")),
    };
    let all = pdf.pages();
    let wanted = match pages(&args.pdf_pages, all.len()) {
        Ok(w) => w,
        // As the server: the ValueError of `int()` escapes `_read_pdf` as the answer's error.
        Err(message) => {
            return Answer {
                body: vec![("error".into(), Json::Str(message))],
                images: Vec::new(),
            };
        }
    };
    if wanted.len() as u64 > MAX_FRAMES {
        return failed(format!(
            "{} pages asked; ReadMedia renders at most {MAX_FRAMES} per call",
            wanted.len()
        ));
    }
    let scale = dpi as f64 / 72.0;
    let settings = InterpreterSettings::default();
    let cache = RenderCache::new();
    let mut images = Vec::new();
    for n in &wanted {
        let page = &all[n - 1];
        let (w, h) = page.render_dimensions();
        // As pdftoppm sizes its picture: the page in points at `dpi`, rounded up.
        let (pw, ph) = (
            (f64::from(w) * scale).ceil() as i64,
            (f64::from(h) * scale).ceil() as i64,
        );
        if let Err(e) = check_dimensions(pw, ph).and_then(|()| {
            (pw <= i64::from(u16::MAX) && ph <= i64::from(u16::MAX))
                .then_some(())
                .ok_or_else(|| format!("page {n} at {dpi} dpi is {pw}x{ph}: too large"))
        }) {
            return failed(e.replace("the video", &format!("page {n} at {dpi} dpi")));
        }
        let (pw, ph) = (pw as u16, ph as u16);
        let mut ctx = RenderContext::new(pw, ph);
        let transform = Affine::scale(scale) * page.initial_transform(true).to_kurbo();
        hayro::render_into(
            page,
            &cache,
            &settings,
            &RenderSettings::default(),
            &mut ctx,
            transform,
        );
        ctx.flush();
        let mut pixmap = Pixmap::new(pw, ph);
        ctx.render_with(
            &mut pixmap,
            &mut Resources::default(),
            RasterizerSettings {
                target_init: TargetInit::Clear(WHITE),
                ..Default::default()
            },
        );
        let (pw, ph) = (u32::from(pixmap.width()), u32::from(pixmap.height()));
        let rgba = pixmap.take_rgba8(hayro::vello_cpu::peniko::ImageAlphaType::Alpha);
        let rgb: Vec<u8> = rgba
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        let Some(img) = RgbImage::from_raw(pw, ph, rgb) else {
            return failed(format!("page {n}: the renderer returned a short picture"));
        };
        let img = DynamicImage::ImageRgb8(img);
        let encoded = match keep {
            Keep::Png => png(&img),
            Keep::Shown => shown_jpeg(&img),
        };
        match encoded {
            Ok(bytes) => images.push(bytes),
            Err(e) => return failed(e),
        }
    }
    let frames = (0..images.len())
        .map(|i| {
            Json::Object(vec![
                ("index".into(), Json::Int(i as i64)),
                ("timestamp_s".into(), Json::Float(0.0)),
                ("mime_type".into(), Json::Str("image/png".into())),
            ])
        })
        .collect();
    let body = vec![
        ("media_type".into(), Json::Str("pdf".into())),
        (
            "metadata".into(),
            Json::Object(vec![
                ("page_count".into(), Json::Int(images.len() as i64)),
                ("dpi".into(), Json::Int(dpi)),
            ]),
        ),
        ("frames".into(), Json::List(frames)),
        (
            "text_summary".into(),
            Json::Str(format!("PDF: {} page(s) at {dpi} DPI.", images.len())),
        ),
    ];
    Answer { body, images }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &[u8] = include_bytes!("../../../pdf/tests/fixtures/report.pdf");

    fn args(json: &str) -> Args {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn page_lists_as_claw_eval_parses_them() {
        assert_eq!(pages("all", 3), Ok(vec![1, 2, 3]));
        assert_eq!(pages("2", 3), Ok(vec![2]));
        assert_eq!(pages("2-9", 3), Ok(vec![2, 3]));
        assert_eq!(pages("1,3,7", 3), Ok(vec![1, 3]));
        assert_eq!(pages("1,x", 3), Ok(vec![1, 2, 3]));
        assert_eq!(pages("5", 3), Ok(vec![]));
        assert_eq!(
            pages("two", 3),
            Err("invalid literal for int() with base 10: 'two'".into())
        );
    }

    #[test]
    fn pages_render_at_the_dpi_asked() {
        let a = answer(
            &args(r#"{"path": "r.pdf", "pdf_pages": "1-2"}"#),
            REPORT.to_vec(),
            Keep::Png,
        );
        assert_eq!(a.images.len(), 2);
        let text = Json::Object(a.body.clone()).dumps();
        assert!(
            text.contains(r#""metadata": {"page_count": 2, "dpi": 100}"#)
                && text.ends_with(r#""text_summary": "PDF: 2 page(s) at 100 DPI."}"#),
            "{text}"
        );
        let page = image::load_from_memory(&a.images[0]).unwrap().to_rgb8();
        let at_72 = answer(
            &args(r#"{"path": "r.pdf", "pdf_pages": "1", "dpi": 72}"#),
            REPORT.to_vec(),
            Keep::Png,
        );
        let small = image::load_from_memory(&at_72.images[0]).unwrap();
        assert_eq!(page.width(), small.width() * 100 / 72, "scaled by dpi / 72");
        // White paper with ink on it: text was drawn.
        let dark = page
            .pixels()
            .filter(|p| p.0.iter().all(|c| *c < 100))
            .count();
        assert!(
            page.get_pixel(0, 0).0 == [255, 255, 255] && dark > 200,
            "dark pixels: {dark}"
        );
    }

    #[test]
    fn what_is_not_a_pdf_fails_as_the_server_says() {
        let a = answer(
            &args(r#"{"path": "x.pdf"}"#),
            b"not a pdf".to_vec(),
            Keep::Png,
        );
        let text = Json::Object(a.body).dumps();
        assert!(
            text.contains("PDF render failed: Unable to get page count."),
            "{text}"
        );
        assert!(a.images.is_empty());
        let huge = answer(
            &args(r#"{"path": "r.pdf", "dpi": 100000}"#),
            REPORT.to_vec(),
            Keep::Png,
        );
        assert!(
            Json::Object(huge.body)
                .dumps()
                .contains("PDF render failed")
        );
    }
}
