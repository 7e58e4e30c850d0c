//! A mechanism whose parts move on their own, integrated island by
//! island: each island has its own steps, events and contact solves, so an
//! event of one part (a block that stops) no longer restarts the
//! integration of all the others, and the cost grows with the islands
//! instead of with islands times events.
//!
//! The islands advance in time order: the one furthest behind takes the
//! next step. A step is cut at its first event and the event is handled
//! when its island is again the furthest behind, so when an event is
//! recorded every other island has reached its time and still holds the
//! step that covers it: their states there come from their dense output
//! (projected onto their rows, as samples are). Samples are taken by every
//! island at the same times and put together. A stop (Painleve, a
//! failure) ends the run at its time once every island has reached it.

use crate::simulate::{
    simulate, ContactSample, Event, Observer, Outcome, Run, Settings, StartProjection, Stop,
};
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant as Clock;
use zwang_model::{Island, Mechanism};

/// Runs `whole`, made of `islands` (its independent parts, as
/// [`zwang_model::planar::PlanarModel::islands`] gives them), to
/// `duration`: the same motion as [`simulate`] on `whole`, each island
/// stepped and its events located on its own. With fewer than two islands
/// (or settings a run refuses) it is [`simulate`].
pub fn simulate_islands<M: Mechanism>(
    whole: &M,
    islands: &[Island<M>],
    duration: f64,
    settings: &Settings,
    observer: &mut dyn Observer,
) -> Outcome {
    let wants = observer.wants_samples();
    let mut settings = *settings;
    settings.ode.dense_output &= whole.contacts() > 0 || wants;
    if islands.len() < 2 || settings.validate().is_err() || !consistent(whole, islands) {
        return simulate(whole, duration, &settings, observer);
    }
    let clock = Clock::now();
    let mut driver = Driver {
        whole,
        islands,
        parts: (islands.iter())
            .map(|island| Part {
                run: Run::new(&island.model, duration, &settings),
                outbox: Outbox {
                    wants,
                    records: Vec::new(),
                },
                stop: None,
            })
            .collect(),
        queue: BinaryHeap::new(),
        stop: None,
        samples: VecDeque::new(),
        pending: Vec::new(),
        seq: 0,
        events: Vec::new(),
        wants,
        buffer: Vec::new(),
        end: 0.0,
    };
    let result = driver.go(observer);
    driver.finish(result, clock)
}

/// Whether the islands' maps fit the whole (each coordinate and contact
/// once): a caller's mistake makes a plain run, not a panic.
fn consistent<M: Mechanism>(whole: &M, islands: &[Island<M>]) -> bool {
    let cover = |n: usize, lists: &mut dyn Iterator<Item = (&[usize], usize)>| {
        let mut seen = vec![false; n];
        for (list, len) in lists {
            if list.len() != len {
                return false;
            }
            for &i in list {
                if i >= n || std::mem::replace(&mut seen[i], true) {
                    return false;
                }
            }
        }
        seen.into_iter().all(|s| s)
    };
    let (nq, nv, nc) = (whole.nq(), whole.nv(), whole.contacts());
    cover(nq, &mut islands.iter().map(|i| (&i.q[..], i.model.nq())))
        && cover(nv, &mut islands.iter().map(|i| (&i.v[..], i.model.nv())))
        && cover(
            nc,
            &mut islands
                .iter()
                .map(|i| (&i.contacts[..], i.model.contacts())),
        )
}

/// One island's run.
struct Part<'m, M: Mechanism> {
    run: Run<'m, M>,
    outbox: Outbox,
    /// How it ended, when it stopped before the end.
    stop: Option<Stop>,
}

impl<M: Mechanism> Part<'_, M> {
    /// Whether it has more to do.
    fn live(&self) -> bool {
        self.stop.is_none() && self.run.running()
    }
}

/// What an island's run reports, kept until the driver puts it together
/// with the other islands' states.
struct Outbox {
    wants: bool,
    records: Vec<Record>,
}

enum Record {
    Sample {
        t: f64,
        y: Vec<f64>,
        contacts: Vec<ContactSample>,
    },
    Event {
        event: Event,
        contacts: Vec<ContactSample>,
    },
}

impl Observer for Outbox {
    fn wants_samples(&self) -> bool {
        self.wants
    }
    fn sample(&mut self, t: f64, q: &[f64], v: &[f64], contacts: &[ContactSample]) {
        self.records.push(Record::Sample {
            t,
            y: [q, v].concat(),
            contacts: contacts.to_vec(),
        });
    }
    fn event(&mut self, event: &Event, contacts: &[ContactSample]) {
        self.records.push(Record::Event {
            event: event.clone(),
            contacts: contacts.to_vec(),
        });
    }
}

/// A sample or an event of the whole, filled island by island.
struct Slot {
    t: f64,
    /// The event (its contact among the whole's); `None`: a sample.
    event: Option<Event>,
    /// `q ++ v` of the whole.
    y: Vec<f64>,
    contacts: Vec<ContactSample>,
    /// How many islands' parts are still to come.
    missing: usize,
    /// For an event, which (the one whose event it is has given its own).
    given: Vec<bool>,
    /// Order of creation, to keep records of one time in their order.
    seq: usize,
}

impl Slot {
    /// Where it goes among records: by time; at the start events come
    /// first (the start's sample follows its impacts), later a step's
    /// samples come before the event it is cut at; then as created.
    fn before(&self, other: &Slot) -> bool {
        let class = |s: &Slot| u8::from(s.event.is_some() != (s.t == 0.0));
        (self.t.total_cmp(&other.t))
            .then(class(self).cmp(&class(other)))
            .then(self.seq.cmp(&other.seq))
            .is_lt()
    }
}

/// A time as a key of the islands' queue.
#[derive(Clone, Copy, PartialEq)]
struct Time(f64);
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

struct Driver<'m, M: Mechanism> {
    whole: &'m M,
    islands: &'m [Island<M>],
    parts: Vec<Part<'m, M>>,
    /// The islands with more to do, the one furthest behind first.
    queue: BinaryHeap<Reverse<(Time, usize)>>,
    /// The earliest stop so far.
    stop: Option<f64>,
    /// Samples not yet given, in time order (islands pass the sample
    /// times in order, so the first to pass one makes its slot last).
    samples: VecDeque<Slot>,
    /// Events not yet given.
    pending: Vec<Slot>,
    seq: usize,
    /// The whole's events, in the order given to the observer.
    events: Vec<Event>,
    wants: bool,
    buffer: Vec<f64>,
    /// Where the run ended: the duration, or the earliest stop.
    end: f64,
}

impl<'m, M: Mechanism> Driver<'m, M> {
    fn go(&mut self, observer: &mut dyn Observer) -> Result<(), Stop> {
        for i in 0..self.parts.len() {
            let part = &mut self.parts[i];
            if let Err(stop) = part.run.begin(&mut part.outbox) {
                part.stop = Some(stop);
            }
            self.requeue(i);
        }
        for i in 0..self.parts.len() {
            self.collect(i);
        }
        self.fill();
        self.emit(observer, false);
        while let Some(Reverse((Time(t), i))) = self.queue.pop() {
            // Every island has reached the earliest stop: the run ends there.
            if self.stop.is_some_and(|ts| t >= ts) {
                break;
            }
            let part = &mut self.parts[i];
            if let Err(stop) = part.run.tick(&mut part.outbox) {
                part.stop = Some(stop);
            }
            self.requeue(i);
            self.collect(i);
            self.fill();
            self.emit(observer, false);
            let behind = self.queue.peek().map_or(t, |Reverse((Time(t), _))| *t);
            observer.progress(
                behind.min(self.stop.unwrap_or(behind)),
                self.parts[i].run.duration(),
            );
        }
        self.fill();
        self.emit(observer, true);
        // The earliest stop is the run's.
        let first = (0..self.parts.len())
            .filter(|&i| self.parts[i].stop.is_some())
            .min_by(|&a, &b| self.parts[a].run.t.total_cmp(&self.parts[b].run.t));
        match first {
            Some(i) => {
                self.end = self.parts[i].run.t;
                Err(self.parts[i].stop.take().expect("filtered on it"))
            }
            None => {
                self.end = self.parts.iter().map(|p| p.run.t).fold(0.0, f64::max);
                Ok(())
            }
        }
    }

    /// Puts island `i` back in the queue when it has more to do, or notes
    /// its stop.
    fn requeue(&mut self, i: usize) {
        let part = &self.parts[i];
        if part.stop.is_some() {
            let t = part.run.t;
            self.stop = Some(self.stop.map_or(t, |s| s.min(t)));
        } else if part.live() {
            self.queue.push(Reverse((Time(part.run.t), i)));
        }
    }

    /// Takes island `i`'s new records into slots.
    fn collect(&mut self, i: usize) {
        let records = std::mem::take(&mut self.parts[i].outbox.records);
        let island = &self.islands[i];
        let (nq, nc) = (self.whole.nq(), self.whole.contacts());
        let n = self.parts.len();
        for record in records {
            let (t, y, contacts, event) = match record {
                Record::Sample { t, y, contacts } => (t, y, contacts, None),
                Record::Event { event, contacts } => {
                    let y = [&event.q[..], &event.v[..]].concat();
                    (event.time, y, contacts, Some(event))
                }
            };
            let mut fresh = || {
                self.seq += 1;
                Slot {
                    t,
                    event: None,
                    y: vec![0.0; nq + self.whole.nv()],
                    contacts: vec![OPEN; nc],
                    missing: n,
                    given: Vec::new(),
                    seq: self.seq,
                }
            };
            let slot = match event {
                None => {
                    // Every island samples at the same times, in order.
                    let at = self.samples.partition_point(|s| s.t < t);
                    if self.samples.get(at).is_none_or(|s| s.t != t) {
                        let slot = fresh();
                        self.samples.insert(at, slot);
                    }
                    &mut self.samples[at]
                }
                Some(e) => {
                    let mut slot = fresh();
                    slot.event = Some(Event {
                        contact: island.contacts.get(e.contact).copied().unwrap_or(0),
                        q: vec![0.0; nq],
                        v: vec![0.0; self.whole.nv()],
                        ..e
                    });
                    slot.given = vec![false; n];
                    slot.given[i] = true;
                    self.pending.push(slot);
                    self.pending.last_mut().expect("pushed")
                }
            };
            place(island, nq, &y, &contacts, slot);
            slot.missing -= 1;
        }
    }

    /// Fills the events' other islands from those that have reached them.
    fn fill(&mut self) {
        let nq = self.whole.nq();
        for slot in &mut self.pending {
            if slot.missing == 0 {
                continue;
            }
            for (i, part) in self.parts.iter_mut().enumerate() {
                if slot.given[i] {
                    continue;
                }
                let island = &self.islands[i];
                self.buffer
                    .resize(island.model.nq() + island.model.nv(), 0.0);
                if let Some(contacts) = part.run.state_at(slot.t, self.wants, &mut self.buffer) {
                    place(island, nq, &self.buffer, &contacts, slot);
                    slot.given[i] = true;
                    slot.missing -= 1;
                }
            }
        }
    }

    /// Gives the observer, in order, the complete records that no island
    /// can precede any more (all of them at the `end`); records past the
    /// earliest stop are dropped.
    fn emit(&mut self, observer: &mut dyn Observer, end: bool) {
        let floor = match (end, self.queue.peek()) {
            (false, Some(Reverse((Time(t), _)))) => *t,
            _ => f64::INFINITY,
        };
        let nq = self.whole.nq();
        loop {
            let event = (0..self.pending.len()).reduce(|a, b| {
                if self.pending[b].before(&self.pending[a]) {
                    b
                } else {
                    a
                }
            });
            let take_event = match (event, self.samples.front()) {
                (Some(e), Some(s)) => self.pending[e].before(s),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return,
            };
            let next = if take_event {
                &self.pending[event.expect("matched")]
            } else {
                self.samples.front().expect("matched")
            };
            let past_stop = self.stop.is_some_and(|ts| next.t > ts);
            // At the end, what is still incomplete (samples an island that
            // stopped did not reach) is dropped, as a whole run would not
            // have taken it.
            let dropped = end && (next.missing > 0 || past_stop);
            if !dropped && (next.missing > 0 || next.t >= floor || past_stop) {
                return;
            }
            let mut slot = if take_event {
                self.pending.swap_remove(event.expect("matched"))
            } else {
                self.samples.pop_front().expect("matched")
            };
            if dropped {
                continue;
            }
            let (q, v) = slot.y.split_at(nq);
            match slot.event.take() {
                None => observer.sample(slot.t, q, v, &slot.contacts),
                Some(mut event) => {
                    event.q.copy_from_slice(q);
                    event.v.copy_from_slice(v);
                    observer.event(&event, &slot.contacts);
                    self.events.push(event);
                }
            }
        }
    }

    /// The whole's outcome.
    fn finish(mut self, result: Result<(), Stop>, clock: Clock) -> Outcome {
        let (status, reason) = Stop::status(result);
        let time = self.end;
        let (nq, nv) = (self.whole.nq(), self.whole.nv());
        let mut q = vec![0.0; nq];
        let mut v = vec![0.0; nv];
        let mut modes = vec![zwang_model::ContactState::OPEN; self.whole.contacts()];
        let mut stats = crate::simulate::Stats::default();
        let (mut steps, mut energy_initial, mut max_drift) = (0, 0.0, 0.0f64);
        let mut start_projection: Option<StartProjection> = None;
        let mut energy_given = 0.0;
        for (part, island) in self.parts.iter_mut().zip(self.islands) {
            let run = &mut part.run;
            let mut y = vec![0.0; island.model.nq() + island.model.nv()];
            if run.state_at(time, false, &mut y).is_none() {
                y.copy_from_slice(&run.y);
            }
            let (lq, lv) = y.split_at(island.model.nq());
            for (&g, &x) in island.q.iter().zip(lq) {
                q[g] = x;
            }
            for (&g, &x) in island.v.iter().zip(lv) {
                v[g] = x;
            }
            for (&g, &m) in island.contacts.iter().zip(&run.modes) {
                modes[g] = m;
            }
            let counts = run.counts();
            stats.evaluations += counts.evaluations;
            stats.solves += counts.solves;
            stats.rejected += counts.rejected;
            stats.projections += counts.projections;
            stats.solve_time += counts.solve_time;
            steps += run.steps;
            energy_initial += run.energy_initial;
            max_drift = max_drift.max(run.max_drift);
            energy_given += match &run.start_projection {
                Some(p) => p.energy_given,
                None => run.energy_initial,
            };
            if let Some(p) = &run.start_projection {
                let merged = start_projection.get_or_insert_with(|| StartProjection {
                    violation: 0.0,
                    at: p.at.clone(),
                    speed_violation: 0.0,
                    speed_at: p.speed_at.clone(),
                    position_change: 0.0,
                    velocity_change: 0.0,
                    energy_given: 0.0,
                });
                if p.violation > merged.violation {
                    merged.violation = p.violation;
                    merged.at = p.at.clone();
                }
                if p.speed_violation > merged.speed_violation {
                    merged.speed_violation = p.speed_violation;
                    merged.speed_at = p.speed_at.clone();
                }
                merged.position_change = merged.position_change.max(p.position_change);
                merged.velocity_change = merged.velocity_change.max(p.velocity_change);
            }
        }
        if let Some(p) = &mut start_projection {
            p.energy_given = energy_given;
        }
        stats.wall_time = clock.elapsed();
        let energy_final = self.whole.energy(time, &q, &v);
        Outcome {
            status,
            reason,
            time,
            steps,
            events: self.events,
            q,
            v,
            modes,
            energy_initial,
            start_projection,
            energy_final,
            max_constraint_drift: max_drift,
            max_penetration: 0.0,
            multipliers: None,
            unsolved: Default::default(),
            stats,
        }
    }
}

/// Writes an island's state `y` (`q ++ v`, its own) and contacts into the
/// whole's slot.
fn place<M: Mechanism>(
    island: &Island<M>,
    nq: usize,
    y: &[f64],
    contacts: &[ContactSample],
    slot: &mut Slot,
) {
    let (lq, lv) = y.split_at(island.model.nq());
    for (&g, &x) in island.q.iter().zip(lq) {
        slot.y[g] = x;
    }
    for (&g, &x) in island.v.iter().zip(lv) {
        slot.y[nq + g] = x;
    }
    for (&g, c) in island.contacts.iter().zip(contacts) {
        slot.contacts[g] = *c;
    }
}

const OPEN: ContactSample = ContactSample {
    normal_force: 0.0,
    friction_force: 0.0,
    mode: zwang_contact::Mode::Open,
};
