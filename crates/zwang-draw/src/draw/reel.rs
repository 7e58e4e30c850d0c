//! Which samples of a run a drawing keeps, whatever the model: the ones
//! nearest a few instants (a PNG), or at most [`MAX_FRAMES`] evenly
//! spaced ones and the last (an animation). The planar [`super::Film`]
//! and the spatial [`super::space::Film`] keep their frames in one.

use super::{Format, Frame, MAX_FRAMES};

/// Which states a [`Reel`] keeps.
enum Keep {
    /// The sample nearest each time, with its distance.
    Nearest(Vec<(f64, Option<(f64, Frame)>)>),
    /// Every `every`-th sample (counting from the first), at most `max - 1`
    /// of them: when full, every other one is dropped and `every` doubles.
    Every {
        every: usize,
        seen: usize,
        frames: Vec<Frame>,
        max: usize,
    },
}

/// The frames a drawing needs, kept as the run goes; its memory does not
/// grow with the run.
pub(crate) struct Reel {
    keep: Keep,
    /// The last sample, when not kept.
    last: Option<Frame>,
}

impl Reel {
    /// A reel for `format`: a PNG keeps the samples nearest `times` (s;
    /// none: the last sample), an animation at most [`MAX_FRAMES`] samples
    /// (and ignores `times`).
    pub(crate) fn new(format: Format, times: &[f64]) -> Reel {
        let keep = match format {
            Format::Png => Keep::Nearest(times.iter().map(|&t| (t, None)).collect()),
            Format::Gif | Format::Svg => Keep::Every {
                every: 1,
                seen: 0,
                frames: Vec::new(),
                max: MAX_FRAMES,
            },
        };
        Reel { keep, last: None }
    }

    /// The states kept, in time order (the last sample included).
    pub(crate) fn frames(&self) -> Vec<Frame> {
        let mut out: Vec<Frame> = match &self.keep {
            Keep::Nearest(wanted) if wanted.is_empty() => Vec::new(),
            Keep::Nearest(wanted) => {
                return wanted
                    .iter()
                    .filter_map(|(_, best)| best.as_ref().map(|(_, f)| f.clone()))
                    .collect();
            }
            Keep::Every { frames, .. } => frames.clone(),
        };
        if let Some(last) = &self.last {
            out.push(last.clone());
        }
        out
    }

    /// Takes the sample `(t, q)`: keeps it if it is wanted.
    pub(crate) fn sample(&mut self, t: f64, q: &[f64]) {
        let frame = || Frame { t, q: q.to_vec() };
        match &mut self.keep {
            Keep::Nearest(wanted) => {
                for (target, best) in wanted.iter_mut() {
                    let d = (t - *target).abs();
                    if best.as_ref().is_none_or(|(e, _)| d < *e) {
                        *best = Some((d, frame()));
                    }
                }
                if !wanted.is_empty() {
                    return;
                }
            }
            Keep::Every {
                every,
                seen,
                frames,
                max,
            } => {
                let due = *seen % *every == 0;
                *seen += 1;
                if due {
                    frames.push(frame());
                    self.last = None;
                    if frames.len() >= *max {
                        // Keep the first and every other one; the newest,
                        // when it would go, stays as the last sample.
                        if frames.len() % 2 == 0 {
                            self.last = frames.pop();
                        }
                        let mut k = 0;
                        frames.retain(|_| {
                            k += 1;
                            k % 2 == 1
                        });
                        *every *= 2;
                    }
                    return;
                }
            }
        }
        self.last = Some(frame());
    }
}
