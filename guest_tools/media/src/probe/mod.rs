//! `ffprobe`'s document: its sections and entries in FFmpeg's order ([`doc`]), printed by
//! FFmpeg's writers ([`write`]). The document is filled from libavformat in `probe::fill`
//! (inside the sandbox only).

pub mod doc;
pub mod write;

#[cfg(target_family = "wasm")]
pub mod fill;
