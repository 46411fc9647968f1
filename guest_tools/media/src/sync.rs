//! The `ffmpeg` command's video sync (`do_video_out` in FFmpeg 5's `fftools/ffmpeg.c`): how
//! many times each filtered frame is written, so image sequences have FFmpeg's duplicates and
//! drops. Image outputs sync at a constant frame rate (`cfr`; `vscfr`, which does not
//! duplicate the first frames, when the input file has a single stream), unless `-vsync` /
//! `-fps_mode` says otherwise; the output's `-t` is checked against the frame counter, as
//! `check_recording_time` does.

/// A video sync method (`-vsync`, `-fps_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Constant frame rate: duplicate and drop to the output rate.
    Cfr,
    /// Constant frame rate without duplicating the first frames.
    Vscfr,
    /// Variable frame rate: drop frames that would share a timestamp.
    Vfr,
    /// Every frame once, with its own timestamp.
    Passthrough,
    /// Every frame once, timestamps regenerated.
    Drop,
}

impl Mode {
    /// The method named by `-vsync`/`-fps_mode`'s value; `None` for `auto` or unknown names.
    pub fn parse(value: &str) -> Result<Option<Mode>, String> {
        Ok(Some(match value {
            "auto" | "-1" => return Ok(None),
            "passthrough" | "0" => Mode::Passthrough,
            "cfr" | "1" => Mode::Cfr,
            "vfr" | "2" => Mode::Vfr,
            "drop" => Mode::Drop,
            _ => return Err(format!("Invalid value '{value}' for -vsync/-fps_mode")),
        }))
    }
}

/// A rational number.
pub type Rational = (i64, i64);

/// `a * b / c` rounded to the nearest, halves away from zero (`av_rescale_q`'s rounding).
pub fn rescale(a: i64, b: Rational, c: Rational) -> i64 {
    let num = i128::from(a) * i128::from(b.0) * i128::from(c.1);
    let den = i128::from(b.1) * i128::from(c.0);
    if den == 0 {
        return 0;
    }
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    let q = if num >= 0 {
        (num + den / 2) / den
    } else {
        -((-num + den / 2) / den)
    };
    q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// C's `lrintf`: to `f32`, then to the nearest integer, halves to even.
fn lrintf(x: f64) -> i64 {
    (x as f32).round_ties_even() as i64
}

/// The exact position of a frame in the encoder's time base (`adjust_frame_pts_to_encoder_tb`):
/// `pts` in `filter_tb`, minus the output's start (microseconds), nudged off exact halves.
pub fn float_pts(pts: i64, filter_tb: Rational, enc_tb: Rational, start_us: i64) -> f64 {
    let log2 = 63 - (enc_tb.1.max(1) as u64).leading_zeros() as i64;
    let extra_bits = (29 - log2).clamp(0, 16);
    let tb = (enc_tb.0, enc_tb.1 << extra_bits);
    let mut f = (rescale(pts, filter_tb, tb) - rescale(start_us, (1, 1_000_000), tb)) as f64;
    f /= f64::from(1u32 << extra_bits);
    f + if f > 0.0 { 1.0 } else { -1.0 } / f64::from(1u32 << 17)
}

/// What to write for one frame: `previous` copies of the last frame, then `this` of the new
/// one (`previous <= this` counts the first outputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Emit {
    /// Outputs (from the first) that repeat the previous frame.
    pub previous: u64,
    /// Outputs in all.
    pub total: u64,
}

/// The sync state of one output stream.
#[derive(Clone, Debug)]
pub struct Sync {
    mode: Mode,
    enc_tb: Rational,
    /// The next output frame's number (`sync_opts`).
    next: i64,
    written: u64,
    max_frames: u64,
    recording_us: Option<i64>,
    last_nb0: [i64; 3],
    done: bool,
}

impl Sync {
    /// Sync in `mode` to the encoder time base `enc_tb` (1/output rate), writing at most
    /// `max_frames`, for `recording_us` microseconds from the output's start if given.
    pub fn new(mode: Mode, enc_tb: Rational, max_frames: u64, recording_us: Option<i64>) -> Sync {
        Sync {
            mode,
            enc_tb,
            next: 0,
            written: 0,
            max_frames,
            recording_us,
            last_nb0: [0; 3],
            done: false,
        }
    }

    /// Whether no more frames will be written (frame limit or recording time reached).
    pub fn done(&self) -> bool {
        self.done
    }

    /// A frame at `sync_ipts` (from [`float_pts`]) lasting `duration` (encoder time base).
    pub fn frame(&mut self, sync_ipts: f64, duration: f64) -> Emit {
        let mut sync_ipts = sync_ipts;
        let mut duration = duration;
        let mut delta0 = sync_ipts - self.next as f64;
        let mut delta = delta0 + duration;
        let mut nb0: i64 = 0;
        let mut nb: i64 = 1;
        if delta0 < 0.0 && delta > 0.0 && !matches!(self.mode, Mode::Passthrough | Mode::Drop) {
            sync_ipts = self.next as f64;
            duration += delta0;
            delta0 = 0.0;
        }
        match self.mode {
            Mode::Vscfr | Mode::Cfr => {
                if self.mode == Mode::Vscfr && self.written == 0 && delta0 >= 0.5 {
                    delta = duration;
                    delta0 = 0.0;
                    self.next = sync_ipts.round_ties_even() as i64;
                }
                if delta < -1.1 {
                    nb = 0;
                } else if delta > 1.1 {
                    nb = lrintf(delta);
                    if delta0 > 1.1 {
                        nb0 = lrintf(delta0 - 0.6);
                    }
                }
            }
            Mode::Vfr => {
                if delta <= -0.6 {
                    nb = 0;
                } else if delta > 0.6 {
                    self.next = sync_ipts.round_ties_even() as i64;
                }
            }
            Mode::Drop | Mode::Passthrough => self.next = sync_ipts.round_ties_even() as i64,
        }
        self.emit(nb0, nb)
    }

    /// The end of the stream: the last frame repeated as the recent frames were.
    pub fn flush(&mut self) -> Emit {
        let mut s = self.last_nb0;
        s.sort_unstable();
        let n = s[1];
        self.emit(n, n)
    }

    fn emit(&mut self, nb0: i64, nb: i64) -> Emit {
        let room = i64::try_from(self.max_frames.saturating_sub(self.written)).unwrap_or(i64::MAX);
        let nb = nb.min(room).max(0);
        let nb0 = nb0.min(nb).max(0);
        self.last_nb0 = [nb0, self.last_nb0[0], self.last_nb0[1]];
        let mut total = 0;
        for _ in 0..nb {
            if let Some(limit) = self.recording_us {
                let t = i128::from(self.next) * i128::from(self.enc_tb.0) * 1_000_000;
                if t >= i128::from(limit) * i128::from(self.enc_tb.1) {
                    self.done = true;
                    break;
                }
            }
            self.next += 1;
            self.written += 1;
            total += 1;
        }
        if self.written >= self.max_frames {
            self.done = true;
        }
        Emit {
            previous: (nb0 as u64).min(total),
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescale_rounds_halves_away_from_zero() {
        assert_eq!(rescale(1, (1, 2), (1, 1)), 1);
        assert_eq!(rescale(-1, (1, 2), (1, 1)), -1);
        assert_eq!(rescale(5, (1, 3), (1, 1)), 2);
        assert_eq!(rescale(3_000_000, (1, 1_000_000), (2, 3)), 5); // 4.5 -> 5
    }

    #[test]
    fn frames_on_the_grid_are_written_once() {
        let mut s = Sync::new(Mode::Cfr, (1, 2), u64::MAX, None);
        for k in 0..5 {
            let e = s.frame(float_pts(k, (1, 2), (1, 2), 0), 1.0);
            assert_eq!(
                e,
                Emit {
                    previous: 0,
                    total: 1
                }
            );
        }
        assert_eq!(s.flush().total, 0);
    }

    #[test]
    fn cfr_fills_a_gap_and_vscfr_does_not_at_the_start() {
        // One frame selected at n=3 of a 30 fps stream: CFR writes it 4 times (the gap before
        // it is filled with it, there being no earlier frame), VSCFR once.
        let pts = float_pts(3, (1, 30), (1, 30), 0);
        let mut cfr = Sync::new(Mode::Cfr, (1, 30), u64::MAX, None);
        assert_eq!(cfr.frame(pts, 1.0).total, 4);
        let mut vscfr = Sync::new(Mode::Vscfr, (1, 30), u64::MAX, None);
        assert_eq!(vscfr.frame(pts, 1.0).total, 1);
        let mut vfr = Sync::new(Mode::Vfr, (1, 30), u64::MAX, None);
        assert_eq!(vfr.frame(pts, 1.0).total, 1);
    }

    #[test]
    fn a_lower_output_rate_drops_frames() {
        // 30 fps in, 1 fps out (-r 1): one frame a second, and as FFmpeg the first two
        // outputs are the stream's first two frames (3 s give 5 images).
        let mut s = Sync::new(Mode::Cfr, (1, 1), u64::MAX, None);
        let written: u64 = (0..90)
            .map(|k| s.frame(float_pts(k, (1, 30), (1, 1), 0), 1.0 / 30.0).total)
            .sum();
        assert_eq!(written, 5);
    }

    #[test]
    fn limits_stop_the_output() {
        let mut s = Sync::new(Mode::Cfr, (1, 10), 3, None);
        let total: u64 = (0..10)
            .map(|k| s.frame(float_pts(k, (1, 10), (1, 10), 0), 1.0).total)
            .sum();
        assert_eq!(total, 3);
        assert!(s.done());
        let mut s = Sync::new(Mode::Cfr, (1, 10), u64::MAX, Some(500_000));
        let total: u64 = (0..10)
            .map(|k| s.frame(float_pts(k, (1, 10), (1, 10), 0), 1.0).total)
            .sum();
        assert_eq!(total, 5);
        assert!(s.done());
        assert_eq!(Mode::parse("vfr"), Ok(Some(Mode::Vfr)));
        assert!(Mode::parse("bogus").is_err());
    }
}
