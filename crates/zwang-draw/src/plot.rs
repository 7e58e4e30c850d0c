//! The PNG of `zwang simulate --plot`: positions, energy and contact
//! forces against time.
//!
//! [`write_png`] draws three stacked panels sharing the time axis:
//!
//! 1. every body's coordinates (`NAME.x`, `NAME.y`, and `NAME.angle` for
//!    bodies that have an angle; metres and radians on one axis);
//! 2. the mechanism's energy ([`zwang_model::Bodies::energy`]: kinetic
//!    + gravitational + spring, plus the frame's potential in a moving frame);
//! 3. every contact's `NAME.normal_force` and `NAME.friction_force`.
//!
//! The rows' events are thin vertical lines in every panel, one colour per
//! kind, named in the energy panel's legend. A [`Trace`] keeps what the
//! plot needs while the run goes (an [`Observer`]): each curve decimated to
//! the smallest and largest value of each of at most [`BUCKETS`] spans of
//! time, so that spikes stay, and every event; its memory does not grow
//! with the length of the run. Each panel has its legend in a
//! strip on its right, so that no curve hides behind it. Points that are
//! not finite (a `NaN`, an infinity) are skipped; everything that can go
//! wrong (no rows, rows of another model, a file that cannot be written)
//! is an error, never a panic.
//!
//! Text is drawn with the bundled DejaVu Sans ([`FONT_DATA`], its license
//! beside it in `assets/`), so that no system font is needed.

use plotters::prelude::*;
use plotters::style::FontStyle;
use std::collections::BTreeSet;
use std::fmt::Display;
use std::path::Path;
use zwang_model::Mechanism;
use zwang_motion::report::Row;
use zwang_motion::{ContactSample, Event, Observer};

/// DejaVu Sans (Bitstream Vera license, `assets/DejaVuSans-LICENSE.txt`),
/// the font of the plots.
pub const FONT_DATA: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The family name [`register_font`] gives [`FONT_DATA`] in plotters.
pub const FONT: &str = "sans-serif";

/// Registers [`FONT_DATA`] with plotters' `ab_glyph` text backend as
/// [`FONT`] (normal style): text drawn with that family then needs no
/// system font. Registering again is harmless.
pub fn register_font() -> Result<(), String> {
    plotters::style::register_font(FONT, FontStyle::Normal, FONT_DATA)
        .map_err(|_| "the bundled DejaVuSans.ttf is not a font".to_string())
}

/// Size of the picture, pixels.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 1200;
/// Width of the legend strip right of each panel, pixels.
const LEGEND_WIDTH: u32 = 250;
/// Height of one legend line, pixels.
const LEGEND_LINE: i32 = 19;
/// Values beyond this magnitude are drawn at it (the axis arithmetic stays
/// finite).
const LIMIT: f64 = 1e300;
/// Event lines closer than `1 / EVENT_BINS` of the time axis (and of the
/// same kind) are drawn once.
const EVENT_BINS: f64 = 4096.0;
/// The longest title drawn, characters.
const TITLE_CHARS: usize = 100;
/// A curve keeps the extremes of at most this many spans of its points:
/// about one per pixel column of a panel.
pub const BUCKETS: usize = 1024;

/// Colours of the curves (the "tab10" palette), in turn.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of an event kind's lines.
fn event_color(kind: &str) -> RGBAColor {
    let (r, g, b) = match kind {
        "impact" => (214, 39, 40),
        "lift_off" => (31, 119, 180),
        "stick" => (44, 160, 44),
        "slip" => (255, 127, 14),
        "rest" => (90, 90, 90),
        "painleve_inconsistent" | "painleve_indeterminate" => (148, 0, 148),
        _ => (0, 0, 0),
    };
    RGBAColor(r, g, b, 0.55)
}

/// One curve: its legend label and its finite points `(t, value)`,
/// decimated: each bucket holds `per` consecutive points as its lowest and
/// highest, and when there are more than [`BUCKETS`] buckets, neighbours
/// merge (and `per` doubles).
struct Series {
    label: String,
    buckets: Vec<Bucket>,
    per: usize,
}

/// The extremes of some consecutive points of a curve.
#[derive(Clone, Copy)]
struct Bucket {
    count: usize,
    low: (f64, f64),
    high: (f64, f64),
}

impl Bucket {
    fn merge(self, other: Bucket) -> Bucket {
        let pick = |a: (f64, f64), b: (f64, f64), first: bool| if first { a } else { b };
        Bucket {
            count: self.count + other.count,
            low: pick(self.low, other.low, self.low.1 <= other.low.1),
            high: pick(self.high, other.high, self.high.1 >= other.high.1),
        }
    }
}

impl Series {
    fn new(label: String) -> Series {
        Series {
            label,
            buckets: Vec::new(),
            per: 1,
        }
    }
    /// Adds `(t, y)` when both are finite (values beyond [`LIMIT`] are
    /// drawn at it).
    fn push(&mut self, t: f64, y: f64) {
        if !(t.is_finite() && y.is_finite()) {
            return;
        }
        let point = (t, y.clamp(-LIMIT, LIMIT));
        let one = Bucket {
            count: 1,
            low: point,
            high: point,
        };
        match self.buckets.last_mut() {
            Some(last) if last.count < self.per => *last = last.merge(one),
            _ => self.buckets.push(one),
        }
        if self.buckets.len() > BUCKETS {
            self.buckets = self
                .buckets
                .chunks(2)
                .filter_map(|pair| pair.iter().copied().reduce(Bucket::merge))
                .collect();
            self.per *= 2;
        }
    }
    /// The points drawn: each bucket's extremes, in time order.
    fn points(&self) -> Vec<(f64, f64)> {
        let mut points = Vec::with_capacity(2 * self.buckets.len());
        for b in &self.buckets {
            let (first, second) = if b.low.0 <= b.high.0 {
                (b.low, b.high)
            } else {
                (b.high, b.low)
            };
            points.push(first);
            if second != first {
                points.push(second);
            }
        }
        points
    }
}

/// A curve as drawn: its label and its points.
struct Curve {
    label: String,
    points: Vec<(f64, f64)>,
}

/// One panel: a caption, the unit of its values, its curves, and what it
/// says when it has none.
struct Panel {
    caption: &'static str,
    unit: &'static str,
    series: Vec<Curve>,
    empty: &'static str,
}

pub(crate) fn text_error(e: impl Display) -> String {
    e.to_string()
}

/// Draws the rows (positions, energy, contact forces against time) into a
/// PNG at `path`, titled `title` (the scene's name).
///
/// The rows are those of a [`zwang_motion::report::Recorder`] of `model`: an
/// empty slice, or a row whose lengths are not the model's, is an error,
/// as is a file that cannot be written. Non-finite values are skipped.
pub fn write_png<M: Mechanism>(
    model: &M,
    rows: &[Row],
    title: &str,
    path: &Path,
) -> Result<(), String> {
    check_rows(model, rows)?;
    let mut trace = Trace::new(model);
    for row in rows {
        trace.add(row.t, &row.q, &row.v, &row.contacts, row.energy, row.event);
    }
    trace.write_png(title, path)
}

/// Draws a comparison of the time stepper's two friction laws along a
/// motion ([`zwang_motion::compare_frictions`]) into a PNG at `path`: the
/// largest position difference against time, and the normal velocity of
/// pushing contacts under each law (zero for Coulomb's law, `mu |u_T|`
/// where the convex form slides).
pub fn write_comparison_png(
    cmp: &zwang_motion::Comparison,
    title: &str,
    path: &Path,
) -> Result<(), String> {
    let finite = |points: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        points
            .into_iter()
            .filter(|(t, v)| t.is_finite() && v.is_finite())
            .collect()
    };
    let curve = |label: &str, value: fn(&zwang_motion::CompareRow) -> f64| Curve {
        label: label.to_string(),
        points: finite(cmp.rows.iter().map(|r| (r.t, value(r))).collect()),
    };
    let panels = [
        Panel {
            caption: "largest position difference, exact less convex",
            unit: "m, rad",
            series: vec![curve("|q_exact - q_convex|", |r| r.position_difference)],
            empty: "no finite values",
        },
        Panel {
            caption: "normal velocity of pushing contacts",
            unit: "m/s",
            series: vec![
                curve("exact (Coulomb)", |r| r.separation_exact),
                curve("convex (mu |u_T| gliding)", |r| r.separation_convex),
            ],
            empty: "no finite values",
        },
    ];
    let (t_min, t_max) = cmp
        .rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
            (lo.min(r.t), hi.max(r.t))
        });
    if t_min > t_max {
        return Err("no row to draw".into());
    }
    let time = time_range(t_min, t_max);
    register_font()?;
    let height = 2 * HEIGHT / 3;
    let mut buffer = vec![0u8; WIDTH as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(text_error)?;
        let title: String = title.chars().take(TITLE_CHARS).collect();
        let root = root
            .margin(10, 6, 6, 6)
            .titled(&title, (FONT, 30))
            .map_err(text_error)?;
        let areas = root.split_evenly((panels.len(), 1));
        for (area, panel) in areas.iter().zip(&panels) {
            draw_panel(area, panel, time, &[], None)?;
        }
        root.present().map_err(text_error)?;
    }
    write_rgb_png(&buffer, (WIDTH, height), path)
}

/// Every row must be of the model: its lengths of `q`, `v` and contacts.
fn check_rows<M: Mechanism>(model: &M, rows: &[Row]) -> Result<(), String> {
    if rows.is_empty() {
        return Err("no rows to draw".into());
    }
    for (i, row) in rows.iter().enumerate() {
        let lengths = [
            ("positions", row.q.len(), model.nq()),
            ("velocities", row.v.len(), model.nv()),
            ("contacts", row.contacts.len(), model.contacts()),
        ];
        for (what, found, expected) in lengths {
            if found != expected {
                return Err(format!("row {i} has {found} {what}, the model {expected}"));
            }
        }
    }
    Ok(())
}

/// What the plot of a run needs, kept as the run goes: an [`Observer`]
/// whose memory is bounded whatever the run's length (each curve
/// decimated to the extremes of at most [`BUCKETS`] spans; the events
/// kept). [`Trace::write_png`] draws it as [`write_png`] draws rows.
///
/// ```
/// use zwang_model::planar::{Body, PlanarModel};
/// use zwang_draw::plot::Trace;
/// use zwang_motion::{simulate, Settings};
///
/// let ball = Body::particle("ball", 1.0).at([0.0, 1.0]);
/// let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![], vec![]).unwrap();
/// let settings = Settings { output_every: 1e-5, ..Settings::default() };
/// let mut trace = Trace::new(&model);
/// simulate(&model, 1.0, &settings, &mut trace); // 100,001 samples, 2048 points a curve at most
/// let path = std::env::temp_dir().join(format!("zwang-trace-{}.png", std::process::id()));
/// trace.write_png("a falling ball", &path).unwrap();
/// # std::fs::remove_file(path).unwrap();
/// ```
pub struct Trace<'m, M: Mechanism> {
    model: &'m M,
    positions: Vec<Series>,
    angles: bool,
    energy: Series,
    forces: Vec<Series>,
    events: Vec<(f64, &'static str)>,
    /// The smallest and largest finite time seen.
    times: (f64, f64),
    rows: usize,
}

impl<'m, M: Mechanism> Trace<'m, M> {
    /// An empty trace of `model`'s curves.
    pub fn new(model: &'m M) -> Self {
        const AXES: [&str; 3] = ["x", "y", "z"];
        let (q, v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
        let mut positions = Vec::new();
        let mut angles = false;
        for b in 0..model.bodies() {
            let name = model.body_name(b);
            // The coordinates a body has are the same in every state.
            let state = model.body_state(b, &q, &v);
            positions.extend(
                (0..state.position.len())
                    .map(|k| Series::new(format!("{name}.{}", AXES.get(k).unwrap_or(&"?")))),
            );
            if state.angle.is_some() {
                angles = true;
                positions.push(Series::new(format!("{name}.angle")));
            }
        }
        let forces = (0..model.contacts())
            .flat_map(|k| {
                let name = model.contact_name(k);
                [
                    Series::new(format!("{name}.normal_force")),
                    Series::new(format!("{name}.friction_force")),
                ]
            })
            .collect();
        Trace {
            model,
            positions,
            angles,
            energy: Series::new("energy".into()),
            forces,
            events: Vec::new(),
            times: (f64::INFINITY, f64::NEG_INFINITY),
            rows: 0,
        }
    }

    /// Adds a sample or an event's state.
    fn add(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        contacts: &[ContactSample],
        energy: f64,
        event: Option<&'static str>,
    ) {
        self.rows += 1;
        if !t.is_finite() {
            return;
        }
        self.times = (self.times.0.min(t), self.times.1.max(t));
        let mut curves = self.positions.iter_mut();
        for b in 0..self.model.bodies() {
            let s = self.model.body_state(b, q, v);
            for (&p, series) in s.position.iter().zip(curves.by_ref()) {
                series.push(t, p);
            }
            if let Some(a) = s.angle {
                if let Some(series) = curves.next() {
                    series.push(t, a);
                }
            }
        }
        self.energy.push(t, energy);
        for (c, pair) in contacts.iter().zip(self.forces.chunks_mut(2)) {
            pair[0].push(t, c.normal_force);
            if let Some(friction) = pair.get_mut(1) {
                friction.push(t, c.friction_force);
            }
        }
        if let Some(kind) = event {
            self.events.push((t.clamp(-LIMIT, LIMIT), kind));
        }
    }

    /// Draws the trace into a PNG at `path`, titled `title`: an error when
    /// nothing was traced, when no time was finite, or when the file
    /// cannot be written.
    pub fn write_png(&self, title: &str, path: &Path) -> Result<(), String> {
        if self.rows == 0 {
            return Err("no rows to draw".into());
        }
        let (t_min, t_max) = self.times;
        if t_min > t_max {
            return Err("no row has a finite time".into());
        }
        let time = time_range(t_min, t_max);
        let panels = self.panels();
        let events = events(&self.events, time);

        register_font()?;
        let mut buffer = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
            root.fill(&WHITE).map_err(text_error)?;
            let title: String = if title.chars().count() > TITLE_CHARS {
                title.chars().take(TITLE_CHARS - 1).chain(['…']).collect()
            } else {
                title.to_string()
            };
            let root = root
                .margin(10, 6, 6, 6)
                .titled(&title, (FONT, 30))
                .map_err(text_error)?;
            let areas = root.split_evenly((panels.len(), 1));
            for (i, (area, panel)) in areas.iter().zip(&panels).enumerate() {
                // The event kinds are named once, in the energy panel.
                let kinds = if i == 1 { Some(&events) } else { None };
                draw_panel(area, panel, time, &events, kinds)?;
            }
            root.present().map_err(text_error)?;
        }
        write_rgb_png(&buffer, (WIDTH, HEIGHT), path)
    }

    /// The three panels' curves.
    fn panels(&self) -> Vec<Panel> {
        let curves = |series: &[Series]| -> Vec<Curve> {
            series
                .iter()
                .map(|s| Curve {
                    label: s.label.clone(),
                    points: s.points(),
                })
                .collect()
        };
        vec![
            Panel {
                caption: "positions",
                unit: if self.angles { "m, rad" } else { "m" },
                series: curves(&self.positions),
                empty: "no finite values",
            },
            Panel {
                caption: "energy (kinetic + potential)",
                unit: "J",
                series: curves(std::slice::from_ref(&self.energy)),
                empty: "no finite energy",
            },
            Panel {
                caption: "contact forces",
                unit: "N",
                series: curves(&self.forces),
                empty: if self.model.contacts() == 0 {
                    "no contacts"
                } else {
                    "no finite values"
                },
            },
        ]
    }
}

impl<M: Mechanism> Observer for Trace<'_, M> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        let energy = self.model.energy(t, q, v);
        self.add(t, q, v, contacts, energy, None);
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        let (t, q, v) = (event.time, &event.q, &event.v);
        let energy = self.model.energy(t, q, v);
        self.add(t, q, v, contacts, energy, Some(event.kind.as_str()));
    }
}

/// The events' times and kinds, in time order, one per kind and bin of the
/// time axis.
fn events(all: &[(f64, &'static str)], (t0, t1): (f64, f64)) -> Vec<(f64, &'static str)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &(t, kind) in all {
        let bin = ((t - t0) / (t1 - t0) * EVENT_BINS).floor() as i64;
        if seen.insert((kind, bin)) {
            out.push((t, kind));
        }
    }
    out
}

/// The time axis: the rows' times, or a second from the only one.
fn time_range(t_min: f64, t_max: f64) -> (f64, f64) {
    let (lo, hi) = (t_min.clamp(-LIMIT, LIMIT), t_max.clamp(-LIMIT, LIMIT));
    if hi - lo > 1e-9 * lo.abs().max(hi.abs()) {
        (lo, hi)
    } else {
        (lo, lo + lo.abs().max(1.0))
    }
}

/// The value axis of some curves: their range with a margin, at least a
/// thousandth of their magnitude wide (a conserved energy shows as a flat
/// line, not as its rounding noise).
fn value_range(series: &[Curve]) -> (f64, f64) {
    let points = series.iter().flat_map(|s| s.points.iter());
    let (lo, hi) = points.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, y)| {
        (lo.min(y), hi.max(y))
    });
    let scale = lo.abs().max(hi.abs());
    if lo > hi || scale == 0.0 {
        return (-1.0, 1.0);
    }
    let span = (hi - lo).max(1e-3 * scale).max(1e-9);
    let (mid, half) = (0.5 * lo + 0.5 * hi, 0.55 * span);
    (mid - half, mid + half)
}

/// Tick labels for an axis from `lo` to `hi`: as many decimals as its
/// ticks need, or scientific notation for very large or small values.
fn tick_label(lo: f64, hi: f64) -> impl Fn(&f64) -> String {
    let scale = lo.abs().max(hi.abs());
    let decimals = (-((hi - lo) / 10.0).log10().floor()).clamp(0.0, 9.0) as usize;
    move |v: &f64| {
        // A tick at zero, give or take the rounding of the tick's place.
        if v.abs() <= 1e-9 * (hi - lo) {
            return "0".into();
        }
        let s = if !(1e-3..1e5).contains(&scale) || decimals > 6 {
            format!("{v:.3e}")
        } else {
            format!("{v:.decimals$}")
        };
        // No "-0.00".
        match s.strip_prefix('-') {
            Some(rest) if !rest.contains(|c: char| ('1'..='9').contains(&c)) => rest.to_string(),
            _ => s,
        }
    }
}

/// One panel: the chart on the left, the legend strip on the right.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    time: (f64, f64),
    events: &[(f64, &'static str)],
    kinds: Option<&Vec<(f64, &'static str)>>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let (width, _) = area.dim_in_pixel();
    let (chart_area, legend_area) = area.split_horizontally(width.saturating_sub(LEGEND_WIDTH));
    let (lo, hi) = value_range(&panel.series);
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(panel.caption, (FONT, 20))
        .margin(8)
        .x_label_area_size(42)
        .y_label_area_size(85)
        .build_cartesian_2d(time.0..time.1, lo..hi)
        .map_err(text_error)?;
    chart
        .configure_mesh()
        .x_desc("t (s)")
        .y_desc(panel.unit)
        .x_labels(10)
        .y_labels(6)
        .x_label_formatter(&tick_label(time.0, time.1))
        .y_label_formatter(&tick_label(lo, hi))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 15))
        .light_line_style(RGBColor(245, 245, 245))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(text_error)?;
    chart
        .draw_series(events.iter().map(|&(t, kind)| {
            PathElement::new(vec![(t, lo), (t, hi)], event_color(kind).stroke_width(1))
        }))
        .map_err(text_error)?;
    for (i, s) in panel.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(text_error)?;
        // A lone point (a run stopped at its start) as a dot.
        if s.points.len() == 1 {
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(text_error)?;
        }
    }
    if panel.series.iter().all(|s| s.points.is_empty()) {
        let style = TextStyle::from((FONT, 18)).color(&RGBColor(120, 120, 120));
        let (w, h) = chart_area.dim_in_pixel();
        chart_area
            .draw_text(panel.empty, &style, (w as i32 / 2 - 40, h as i32 / 2))
            .map_err(text_error)?;
    }

    // The legend: a short line and the label per curve, then the event
    // kinds; as many as fit, then how many more.
    let mut entries: Vec<(String, RGBAColor, u32)> = panel
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label.clone(), PALETTE[i % PALETTE.len()].to_rgba(), 3))
        .collect();
    if let Some(kinds) = kinds {
        let mut named = BTreeSet::new();
        for &(_, kind) in kinds {
            if named.insert(kind) {
                entries.push((format!("{kind} (event)"), event_color(kind), 2));
            }
        }
    }
    let (_, height) = legend_area.dim_in_pixel();
    let fit = ((height as i32 - 2 * LEGEND_LINE) / LEGEND_LINE).max(1) as usize;
    let style = TextStyle::from((FONT, 14)).color(&BLACK);
    let shown = if entries.len() > fit {
        fit - 1
    } else {
        entries.len()
    };
    for (i, (label, color, width)) in entries.iter().take(shown).enumerate() {
        let y = 2 * LEGEND_LINE + i as i32 * LEGEND_LINE;
        legend_area
            .draw(&PathElement::new(
                vec![(6, y), (34, y)],
                color.stroke_width(*width),
            ))
            .map_err(text_error)?;
        legend_area
            .draw_text(label, &style, (42, y - 8))
            .map_err(text_error)?;
    }
    if shown < entries.len() {
        let y = 2 * LEGEND_LINE + shown as i32 * LEGEND_LINE;
        legend_area
            .draw_text(
                &format!("… and {} more", entries.len() - shown),
                &style,
                (42, y - 8),
            )
            .map_err(text_error)?;
    }
    Ok(())
}

/// Writes an RGB buffer of `width x height` pixels as a PNG, whatever the
/// file's extension.
pub(crate) fn write_rgb_png(
    buffer: &[u8],
    (width, height): (u32, u32),
    path: &Path,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(text_error)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    // Flat colours and thin lines: the adaptive filter and the best
    // compression make the file several times smaller.
    encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    encoder.set_compression(png::Compression::Best);
    let mut writer = encoder.write_header().map_err(text_error)?;
    writer.write_image_data(buffer).map_err(text_error)?;
    writer.finish().map_err(text_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::tests::scratch;
    use zwang_core::Mode;
    use zwang_model::planar::{Body, Contact, PlanarModel, Surface};
    use zwang_motion::ContactSample;

    fn model() -> PlanarModel {
        let ball = Body::particle("ball", 1.0).at([0.0, 1.0]);
        let block = Body::rigid("block", 2.0, 0.5).at([1.0, 1.0]);
        let floor = Contact::new("floor", 0, [0.0, 0.0], Surface::FLOOR).with_surface(0.0, 0.5);
        PlanarModel::new([0.0, -9.81], vec![ball, block], vec![], vec![floor], vec![]).unwrap()
    }

    fn row(t: f64, y: f64, event: Option<&'static str>) -> Row {
        Row {
            t,
            q: vec![0.0, y, 1.0, y, 0.1 * t],
            v: vec![0.0, -t, 0.0, -t, 0.1],
            contacts: vec![ContactSample {
                normal_force: if y <= 0.0 { 9.81 } else { 0.0 },
                friction_force: 0.0,
                mode: Mode::Open,
            }],
            energy: 9.81 * y,
            event,
        }
    }

    fn is_png(path: &Path) -> bool {
        let bytes = std::fs::read(path).unwrap();
        bytes.len() > 10_000 && bytes.starts_with(b"\x89PNG\r\n\x1a\n")
    }

    #[test]
    fn draws_a_png() {
        let rows: Vec<Row> = (0..=100)
            .map(|i| {
                let t = i as f64 * 0.01;
                row(t, 1.0 - 4.905 * t * t, (i == 45).then_some("impact"))
            })
            .collect();
        let dir = scratch("plot-ok");
        let path = dir.join("ok.png");
        write_png(&model(), &rows, "a test", &path).unwrap();
        assert!(is_png(&path));
        // The extension does not choose the format.
        let other = dir.join("plot.data");
        write_png(&model(), &rows, "a test", &other).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&other).unwrap()
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn degenerate_rows_are_drawn_or_refused_never_a_panic() {
        let m = model();
        let dir = scratch("plot-odd");
        let path = dir.join("odd.png");
        assert!(write_png(&m, &[], "empty", &path).is_err());
        // One row (a run stopped at its start), NaN and infinite values,
        // huge and constant values, and a very long title.
        write_png(
            &m,
            &[row(0.0, 1.0, Some("painleve_inconsistent"))],
            "one",
            &path,
        )
        .unwrap();
        assert!(is_png(&path));
        let mut rows: Vec<Row> = (0..50).map(|i| row(i as f64, 1.0, None)).collect();
        rows[3].q[1] = f64::NAN;
        rows[4].energy = f64::INFINITY;
        rows[5].contacts[0].normal_force = f64::NEG_INFINITY;
        rows[6].t = f64::NAN;
        rows[7].q[4] = 1e308;
        rows[8].q[3] = -f64::MAX;
        write_png(&m, &rows, &"long ".repeat(100), &path).unwrap();
        for r in &mut rows {
            r.q.iter_mut().for_each(|x| *x = f64::NAN);
            r.energy = f64::NAN;
        }
        write_png(&m, &rows, "all nan", &path).unwrap();
        for r in &mut rows {
            r.t = f64::NAN;
        }
        assert!(write_png(&m, &rows, "no time", &path).is_err());
        // Rows of another model.
        let mut short = vec![row(0.0, 1.0, None)];
        short[0].q.pop();
        let e = write_png(&m, &short, "short", &path).unwrap_err();
        assert_eq!(e, "row 0 has 4 positions, the model 5");
        // A folder that does not exist.
        let rows = vec![row(0.0, 1.0, None), row(1.0, 0.5, None)];
        let missing = dir.join("no/such/folder/plot.png");
        assert!(write_png(&m, &rows, "x", &missing).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A million points keep at most `2 * BUCKETS`, in time order, with
    /// the first, the last and a one-sample spike among them.
    #[test]
    fn curves_keep_their_extremes_in_bounded_memory() {
        let mut series = Series::new("x".into());
        let n = 1_000_000;
        for i in 0..n {
            let y = if i == 777_777 {
                5.0
            } else {
                (i as f64 * 1e-4).sin()
            };
            series.push(i as f64, y);
        }
        assert!(series.buckets.len() <= BUCKETS && series.buckets.len() > BUCKETS / 2);
        let points = series.points();
        assert!(points.len() <= 2 * BUCKETS);
        assert!(points.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(points.contains(&(777_777.0, 5.0)));
        assert_eq!(points[0], (0.0, 0.0));
        let total: usize = series.buckets.iter().map(|b| b.count).sum();
        assert_eq!(total, n);
        let lowest = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        assert!(lowest < -0.999_999);
    }

    #[test]
    fn tick_labels() {
        // Ticks at least a tenth of the axis apart: one decimal more.
        let f = tick_label(0.0, 2.0);
        assert_eq!(f(&0.4), "0.4");
        assert_eq!(f(&-1e-17), "0");
        let f = tick_label(9.80, 9.82);
        assert_eq!(f(&9.81), "9.810");
        assert_eq!(tick_label(0.0, 1e6)(&5e5), "5.000e5");
    }
}
