//! What a run leaves behind: the JSON summary of `zwang simulate`, and the
//! trajectory (samples and events) as CSV rows, kept ([`Recorder`]) or
//! written as they come ([`CsvWriter`]).

use crate::simulate::{ContactSample, Event, Observer, Outcome, Status};
use serde_json::{json, Map, Value};
use std::io::{self, Write};
use zwang_core::{readable, readable_at, readable_vec};
use zwang_model::{Bodies, Mechanism};

/// One row of the trajectory: a sample or an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// s.
    pub t: f64,
    /// Positions.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// One per contact.
    pub contacts: Vec<ContactSample>,
    /// The mechanism's energy ([`zwang_model::Bodies::energy`]).
    pub energy: f64,
    /// The event's kind when the row is an event's.
    pub event: Option<&'static str>,
}

/// An [`Observer`] that keeps every sample and event as a [`Row`] (for the
/// CSV and the plot), and reports progress to a callback.
///
/// Its memory grows with the run: a row per sample (every `output_every`)
/// and per event, so a long run finely sampled fills the memory (`2 s`
/// every `1e-12 s` are 2e12 rows). For those, write the rows as they come
/// with a [`CsvWriter`], and plot them with `zwang-draw`'s `plot::Trace`, whose memory
/// is bounded.
pub struct Recorder<'m, M: Mechanism> {
    model: &'m M,
    /// The rows, in time order.
    pub rows: Vec<Row>,
    progress: Option<Box<dyn FnMut(f64, f64) + 'm>>,
}

impl<'m, M: Mechanism> Recorder<'m, M> {
    /// Records the trajectory of `model`.
    pub fn new(model: &'m M) -> Self {
        Recorder {
            model,
            rows: Vec::new(),
            progress: None,
        }
    }
    /// Calls `f(t, duration)` after every accepted step.
    pub fn with_progress(mut self, f: impl FnMut(f64, f64) + 'm) -> Self {
        self.progress = Some(Box::new(f));
        self
    }
    fn push(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        contacts: &[ContactSample],
        event: Option<&'static str>,
    ) {
        self.rows.push(Row {
            t,
            q: q.to_vec(),
            v: v.to_vec(),
            contacts: contacts.to_vec(),
            energy: self.model.energy(t, q, v),
            event,
        });
    }
}

impl<M: Mechanism> Observer for Recorder<'_, M> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        self.push(t, q, v, contacts, None);
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        self.push(
            event.time,
            &event.q,
            &event.v,
            contacts,
            Some(event.kind.as_str()),
        );
    }
    fn progress(&mut self, t: f64, duration: f64) {
        if let Some(f) = &mut self.progress {
            f(t, duration);
        }
    }
}

/// Every body's state at `(q, v)`, keyed by name.
fn bodies<M: Bodies>(model: &M, q: &[f64], v: &[f64]) -> Value {
    let mut map = Map::new();
    for b in 0..model.bodies() {
        let s = model.body_state(b, q, v);
        let mut body = Map::new();
        body.insert("position".into(), json!(s.position));
        if let Some(a) = s.angle {
            body.insert("angle".into(), json!(a));
        }
        body.insert("velocity".into(), json!(s.velocity));
        if let Some(w) = s.angular_velocity {
            body.insert("angular_velocity".into(), json!(w));
        }
        map.insert(model.body_name(b).to_string(), Value::Object(body));
    }
    Value::Object(map)
}

/// The summary `zwang simulate --json` prints: `status`, `time`, `steps`,
/// `events`, `final`, `energy`, `max_constraint_drift`, `max_penetration`,
/// `unsolved_steps` (and `contact_error` {`worst`, `time`, `tolerance`}
/// from the time stepper; `reason` when failed), plus `stats` (the project's addition:
/// evaluations, solves, rejected steps, projections, and the time
/// stepper's seconds per stage).
pub fn summary<M: Mechanism>(model: &M, outcome: &Outcome) -> Value {
    let events: Vec<Value> = outcome
        .events
        .iter()
        .map(|e| {
            json!({
                "time": e.time,
                "kind": e.kind.as_str(),
                "contact": model.contact_name(e.contact),
                "bodies": bodies(model, &e.q, &e.v),
            })
        })
        .collect();
    let out = summary_with(
        outcome,
        Value::Array(events),
        bodies(model, &outcome.q, &outcome.v),
    );
    Value::Object(out)
}

/// The keys of a summary every run has, in the plane and in space:
/// `status`, `time`, `steps`, `events` and `final` (as given: the
/// dimension's own), `energy`, `max_constraint_drift`,
/// `max_penetration`, `unsolved_steps`, `contact_error` (time-stepped
/// runs), `stats` (and `reason` when failed). The spatial
/// CLI's summary is this too, so the two say the same the same way.
pub fn summary_with(outcome: &Outcome, events: Value, bodies: Value) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("status".into(), json!(outcome.status.as_str()));
    if let Some(reason) = &outcome.reason {
        out.insert("reason".into(), json!(reason));
    }
    out.insert("time".into(), json!(outcome.time));
    out.insert("steps".into(), json!(outcome.steps));
    out.insert("events".into(), events);
    out.insert("final".into(), bodies);
    out.insert(
        "energy".into(),
        json!({"initial": outcome.energy_initial, "final": outcome.energy_final}),
    );
    out.insert(
        "max_constraint_drift".into(),
        json!(outcome.max_constraint_drift),
    );
    out.insert("max_penetration".into(), json!(outcome.max_penetration));
    if let Some(m) = &outcome.multipliers {
        out.insert("multipliers".into(), json!(m));
    }
    if let Some(p) = &outcome.start_projection {
        out.insert(
            "start_projection".into(),
            json!({
                "violation": p.violation,
                "at": p.at,
                "velocity_violation": p.speed_violation,
                "velocity_at": p.speed_at,
                "position_change": p.position_change,
                "velocity_change": p.velocity_change,
                "energy_given": p.energy_given,
                "energy_projected": outcome.energy_initial,
            }),
        );
    }
    let u = &outcome.unsolved;
    out.insert("unsolved_steps".into(), json!(u.steps));
    if outcome.stats.stages.is_some() {
        // The time stepper's contact problems: the worst error of any
        // step, when it started, and the tolerance they were held to.
        out.insert(
            "contact_error".into(),
            json!({"worst": u.worst_error, "time": u.worst_time, "tolerance": u.tolerance}),
        );
    }
    let s = &outcome.stats;
    let mut stats = json!({
        "evaluations": s.evaluations,
        "solves": s.solves,
        "rejected": s.rejected,
        "projections": s.projections,
    });
    if let Some(st) = &s.stages {
        // The time stepper's stages, seconds.
        stats["stages"] = json!({
            "collide": st.collide.as_secs_f64(),
            "assemble": st.assemble.as_secs_f64(),
            "solve": st.solve.as_secs_f64(),
            "integrate": st.integrate.as_secs_f64(),
            "correct": st.correct.as_secs_f64(),
        });
    }
    out.insert("stats".into(), stats);
    out
}

/// The most events the text report lists: the first [`FIRST_EVENTS`]
/// and the last [`LAST_EVENTS`], with the count between (the JSON has
/// them all).
const FIRST_EVENTS: usize = 10;
const LAST_EVENTS: usize = 5;

/// The sizes the text reports measure round-off against: a run's
/// largest position, speed, angle, angular velocity and energy, at its
/// start or its end (a speed at least a length over the run's time, a
/// rate at least one over it, an angle at least pi).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scales {
    /// m.
    pub length: f64,
    /// m/s.
    pub speed: f64,
    /// rad.
    pub angle: f64,
    /// rad/s.
    pub rate: f64,
    /// J.
    pub energy: f64,
}

impl Scales {
    /// The scales of `outcome`, a run of `model` from its initial state.
    pub fn of<M: Mechanism>(model: &M, outcome: &Outcome) -> Scales {
        let (mut q0, mut v0) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
        model.initial_state(&mut q0, &mut v0);
        let largest = |x: &[f64]| x.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let mut s = Scales {
            length: 0.0,
            speed: 0.0,
            angle: std::f64::consts::PI,
            rate: 0.0,
            energy: outcome.energy_initial.abs().max(outcome.energy_final.abs()),
        };
        for (q, v) in [(&q0, &v0), (&outcome.q, &outcome.v)] {
            for b in 0..model.bodies() {
                let st = model.body_state(b, q, v);
                s.length = s.length.max(largest(&st.position));
                s.speed = s.speed.max(largest(&st.velocity));
                s.angle = s.angle.max(st.angle.unwrap_or(0.0).abs());
                s.rate = s.rate.max(st.angular_velocity.unwrap_or(0.0).abs());
            }
        }
        if outcome.time > 0.0 {
            s.speed = s.speed.max(s.length / outcome.time);
            s.rate = s.rate.max(1.0 / outcome.time);
        }
        s
    }
}

/// A short readable report of a run: six significant digits, what is
/// within round-off of the run's scale as `0`, the first and last events.
pub fn text<M: Mechanism>(model: &M, outcome: &Outcome) -> String {
    let scales = Scales::of(model, outcome);
    let mut s = String::new();
    let status = match outcome.status {
        Status::Finished => "finished".to_string(),
        Status::Painleve => "stopped: Painleve (no rigid answer, or several)".to_string(),
        Status::Failed => format!("failed: {}", outcome.reason.as_deref().unwrap_or("?")),
    };
    s.push_str(&format!(
        "{status} at t = {} s after {} steps, {} events\n",
        readable(outcome.time),
        outcome.steps,
        outcome.events.len()
    ));
    if let Some(line) = start_line(outcome) {
        s.push_str(&format!("  {line}\n"));
    }
    s.push_str(&events_text(model, &outcome.events));
    for b in 0..model.bodies() {
        let st = model.body_state(b, &outcome.q, &outcome.v);
        s.push_str(&format!(
            "  {}: position {}",
            model.body_name(b),
            readable_vec(&st.position, scales.length)
        ));
        if let Some(a) = st.angle {
            s.push_str(&format!(", angle {}", readable_at(a, scales.angle)));
        }
        s.push_str(&format!(
            ", velocity {}",
            readable_vec(&st.velocity, scales.speed)
        ));
        if let Some(w) = st.angular_velocity {
            s.push_str(&format!(
                ", angular velocity {}",
                readable_at(w, scales.rate)
            ));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "  energy {} -> {} J, max constraint drift {} m\n",
        readable_at(outcome.energy_initial, scales.energy),
        readable_at(outcome.energy_final, scales.energy),
        readable_at(outcome.max_constraint_drift, scales.length)
    ));
    if let Some(m) = &outcome.multipliers {
        s.push_str(&format!(
            "  vakonomic multipliers {}\n",
            readable_vec(m, 0.0)
        ));
    }
    if outcome.stats.stages.is_some() {
        s.push_str(&format!(
            "  deepest overlap of two shapes {} m\n",
            readable_at(outcome.max_penetration, scales.length)
        ));
        s.push_str(&format!("  {}\n", contact_line(outcome)));
    }
    s
}

/// The event lines of the text report: all of them when they are few,
/// else the first and the last with the count between.
fn events_text<M: Mechanism>(model: &M, events: &[Event]) -> String {
    let line = |e: &Event| {
        format!(
            "  t = {:<10} {:<22} {}\n",
            readable(e.time),
            e.kind.as_str(),
            model.contact_name(e.contact)
        )
    };
    if events.len() <= FIRST_EVENTS + LAST_EVENTS + 1 {
        return events.iter().map(line).collect();
    }
    let mut s: String = events[..FIRST_EVENTS].iter().map(line).collect();
    let between = events.len() - FIRST_EVENTS - LAST_EVENTS;
    s.push_str(&format!("  ... {between} more events ...\n"));
    s.extend(events[events.len() - LAST_EVENTS..].iter().map(line));
    s
}

/// How the start was moved onto its joints, closed contacts or apart, in
/// one line (`None` when it was not).
pub fn start_line(outcome: &Outcome) -> Option<String> {
    let p = outcome.start_projection.as_ref()?;
    Some(format!(
        "the start was off its joints and contacts (by {} m at {}, by {} m/s{}): \
         projected in Gauss's metric, positions moved by up to {}, velocities by up to \
         {}, energy {} -> {} J",
        readable(p.violation),
        p.at,
        readable(p.speed_violation),
        if p.speed_at.is_empty() {
            String::new()
        } else {
            format!(" at {}", p.speed_at)
        },
        readable(p.position_change),
        readable(p.velocity_change),
        readable(p.energy_given),
        readable(outcome.energy_initial)
    ))
}

/// How the time stepper's contact problems ended, in one line: all
/// solved, or how many steps were not (`zwang simulate` also prints it on
/// stderr as a warning then).
pub fn contact_line(outcome: &Outcome) -> String {
    let u = &outcome.unsolved;
    if u.steps == 0 {
        format!(
            "contact problems: every step solved to {} (worst error {})",
            readable(u.tolerance),
            readable(u.worst_error)
        )
    } else {
        format!(
            "contact problems: {} of {} steps unsolved (worst error {} at t = {} s, \
             tolerance {})",
            u.steps,
            outcome.steps,
            readable(u.worst_error),
            readable(u.worst_time),
            readable(u.tolerance)
        )
    }
}

/// The CSV header: `t`, per body `NAME.x`, `NAME.y`, (`NAME.angle`),
/// `NAME.vx`, `NAME.vy`, (`NAME.omega`), per contact
/// `CONTACT.normal_force`, `CONTACT.friction_force`, `CONTACT.mode`.
pub fn csv_header<M: Mechanism>(model: &M) -> Vec<String> {
    let mut h = vec!["t".to_string()];
    let (q, v) = (vec![0.0; model.nq()], vec![0.0; model.nv()]);
    for b in 0..model.bodies() {
        let name = model.body_name(b);
        let rigid = model.body_state(b, &q, &v).angle.is_some();
        h.push(format!("{name}.x"));
        h.push(format!("{name}.y"));
        if rigid {
            h.push(format!("{name}.angle"));
        }
        h.push(format!("{name}.vx"));
        h.push(format!("{name}.vy"));
        if rigid {
            h.push(format!("{name}.omega"));
        }
    }
    for k in 0..model.contacts() {
        let name = model.contact_name(k);
        h.push(format!("{name}.normal_force"));
        h.push(format!("{name}.friction_force"));
        h.push(format!("{name}.mode"));
    }
    h
}

/// Writes the rows as CSV (numbers in Rust's shortest round-trip form, so
/// two identical runs write identical files).
pub fn write_csv<M: Mechanism>(model: &M, rows: &[Row], out: &mut impl Write) -> io::Result<()> {
    let mut csv = CsvWriter::new(model, out)?;
    for row in rows {
        csv.row(row.t, &row.q, &row.v, &row.contacts);
    }
    csv.finish().map(|_| ())
}

/// An [`Observer`] that writes each sample and event as a CSV row as it
/// comes (the rows of [`write_csv`]): its memory does not grow with the
/// run. Give it a buffered writer.
///
/// An observer cannot fail, so the first write error is kept, nothing
/// more is written, and [`CsvWriter::finish`] returns it.
///
/// ```
/// use zwang_model::planar::{Body, PlanarModel};
/// use zwang_motion::report::CsvWriter;
/// use zwang_motion::{simulate, Settings};
///
/// let ball = Body::particle("ball", 1.0).at([0.0, 1.0]);
/// let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![], vec![]).unwrap();
/// let settings = Settings { output_every: 0.1, ..Settings::default() };
/// let mut csv = CsvWriter::new(&model, Vec::new()).unwrap();
/// simulate(&model, 1.0, &settings, &mut csv);
/// let text = String::from_utf8(csv.finish().unwrap()).unwrap();
/// assert_eq!(text.lines().next(), Some("t,ball.x,ball.y,ball.vx,ball.vy"));
/// assert_eq!(text.lines().count(), 1 + 11); // the header, t = 0, 0.1, ..., 1
/// ```
pub struct CsvWriter<'m, M: Mechanism, W: Write> {
    model: &'m M,
    lines: CsvLines<W>,
}

impl<'m, M: Mechanism, W: Write> CsvWriter<'m, M, W> {
    /// Writes the header ([`csv_header`]) to `out`.
    pub fn new(model: &'m M, out: W) -> io::Result<Self> {
        Ok(CsvWriter {
            model,
            lines: CsvLines::new(out, &csv_header(model))?,
        })
    }

    /// Writes one row (unless a write has failed).
    fn row(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        let model = self.model;
        self.lines.write(t, |line| {
            for b in 0..model.bodies() {
                let s = model.body_state(b, q, v);
                let mut push = |x: f64| {
                    line.push(',');
                    line.push_str(&x.to_string());
                };
                push(s.position[0]);
                push(s.position[1]);
                if let Some(a) = s.angle {
                    push(a);
                }
                push(s.velocity[0]);
                push(s.velocity[1]);
                if let Some(w) = s.angular_velocity {
                    push(w);
                }
            }
            for c in contacts {
                line.push_str(&format!(
                    ",{},{},{}",
                    c.normal_force,
                    c.friction_force,
                    c.mode.as_str()
                ));
            }
        });
    }

    /// Flushes the writer and gives it back, or the first error met.
    pub fn finish(self) -> io::Result<W> {
        self.lines.finish()
    }
}

/// A CSV written a line at a time as the rows come, in Rust's shortest
/// round-trip numbers; the first write error is kept (the run goes on)
/// and returned by [`CsvLines::finish`]. The machinery of every
/// trajectory writer, in the plane ([`CsvWriter`]) and in space (the
/// CLI's), whose rows differ only in their columns.
pub struct CsvLines<W: Write> {
    out: W,
    line: String,
    error: Option<io::Error>,
}

impl<W: Write> CsvLines<W> {
    /// Writes `header`, comma-separated, to `out`.
    pub fn new(mut out: W, header: &[String]) -> io::Result<Self> {
        writeln!(out, "{}", header.join(","))?;
        Ok(CsvLines {
            out,
            line: String::new(),
            error: None,
        })
    }

    /// Writes the line of `t` and what `values` appends (each value with
    /// its leading comma), unless a write has failed.
    pub fn write(&mut self, t: f64, values: impl FnOnce(&mut String)) {
        if self.error.is_some() {
            return;
        }
        let line = &mut self.line;
        line.clear();
        line.push_str(&t.to_string());
        values(line);
        line.push('\n');
        if let Err(e) = self.out.write_all(line.as_bytes()) {
            self.error = Some(e);
        }
    }

    /// Flushes the writer and gives it back, or the first error met.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<M: Mechanism, W: Write> Observer for CsvWriter<'_, M, W> {
    fn wants_samples(&self) -> bool {
        true
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        self.row(t, q, v, contacts);
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        self.row(event.time, &event.q, &event.v, contacts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::{simulate, Settings};
    use zwang_model::planar::{Body, PlanarModel};

    /// A writer that takes `room` bytes, then fails.
    #[derive(Debug)]
    struct Full {
        room: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if buf.len() > self.room {
                return Err(io::Error::other("disk full"));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The first write error of a run is the one `finish` returns; the
    /// run itself goes on.
    #[test]
    fn a_failed_write_is_kept_for_finish() {
        let ball = Body::particle("ball", 1.0).at([0.0, 1.0]);
        let model = PlanarModel::new([0.0, -9.81], vec![ball], vec![], vec![], vec![]).unwrap();
        let settings = Settings {
            output_every: 0.01,
            ..Settings::default()
        };
        let mut csv = CsvWriter::new(&model, Full { room: 1000 }).unwrap();
        let outcome = simulate(&model, 1.0, &settings, &mut csv);
        assert_eq!(outcome.status, crate::Status::Finished);
        assert_eq!(csv.finish().unwrap_err().to_string(), "disk full");
    }
}
