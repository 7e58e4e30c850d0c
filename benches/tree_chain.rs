//! The tree stepper on a chain of hinged links (10, 100, 1,000), per
//! step, warm (`time_step = 0.002`):
//!
//! - `free/N`: the chain released horizontal, contacts off (each 0.2 s
//!   of fall starts over);
//! - `floor/N`: the chain lying on a floor, the links touching it (exact
//!   Coulomb friction), not each other;
//! - `event/N`: the event-driven method on `free/N` at 1e-8, per
//!   right-hand-side evaluation (a run of 10 us over its evaluations,
//!   its start included: the start's projection factors `M`).
//!
//! The bar is 1,000 links at most 12x the cost of 100. A chain's
//! `M` is dense (every link moves all the links after it): forming it is
//! quadratic and factoring it cubic in the links (`crates/zwang-tree`'s
//! notes). A contact-free step or evaluation needs neither (the
//! articulated-body recursion, linear); a step with contacts and the
//! event-driven method's start do; `docs/benchmarks.md` has the measured
//! ratios.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use zwang::model::articulated::{Articulated, ArticulatedMechanism};
use zwang::motion::{simulate, NoObserver, Settings, StepSettings, TreeStepper};
use zwang::tree::Tree;

/// A chain of `links` capsules of 0.1 m and 0.1 kg along x, hinged about
/// y, the first at the world; on a floor (touching it, not each other)
/// or with contacts off. One link is read from MJCF and repeated (the
/// reader takes bodies nested at most 200 deep).
fn chain(links: usize, floor: bool) -> Articulated {
    let xml = format!(
        "<mujoco><option timestep=\"0.002\">{}</option><worldbody>{}\
         <body pos=\"0 0 0.02\"><joint type=\"hinge\" axis=\"0 1 0\"/>\
         <geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.02\" mass=\"0.1\" \
         contype=\"2\" conaffinity=\"1\" friction=\"0.5\"/></body></worldbody></mujoco>",
        if floor {
            ""
        } else {
            "<flag contact=\"disable\"/>"
        },
        if floor {
            "<geom type=\"plane\" size=\"0 0 1\" contype=\"1\" conaffinity=\"2\" friction=\"0.5\"/>"
        } else {
            ""
        },
    );
    let one = zwang::mjcf::parse(&xml, None).expect("a link").model;
    let link = &one.tree.bodies()[0];
    let bodies = (0..links)
        .map(|i| {
            let mut b = link.clone();
            b.name = format!("link{i}");
            b.joints[0].name = format!("hinge{i}");
            if i > 0 {
                b.parent = Some(i - 1);
                b.position = [0.1, 0.0, 0.0];
            }
            b
        })
        .collect();
    let (world, on_link): (Vec<_>, Vec<_>) = one.geoms.iter().partition(|g| g.body.is_none());
    let mut geoms: Vec<_> = world.into_iter().cloned().collect();
    for i in 0..links {
        let mut g = on_link[0].clone();
        g.name = format!("link{i}");
        g.body = Some(i);
        geoms.push(g);
    }
    let joints = (0..links)
        .map(|i| {
            let mut j = one.joints[0].clone();
            j.name = format!("hinge{i}");
            j
        })
        .collect();
    Articulated {
        tree: Tree::new(bodies, [0.0, 0.0, -9.81]).expect("a chain"),
        joints,
        geoms,
        ..one
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("tree_chain");
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(10);
    for floor in [false, true] {
        for links in [10, 100, 1000] {
            let model = chain(links, floor);
            let settings = StepSettings {
                time_step: 0.002,
                ..StepSettings::default()
            };
            let mut stepper = TreeStepper::new(&model, settings).expect("a stepper");
            let rest = (vec![0.0; links], vec![0.0; links], Vec::new());
            let name = if floor { "floor" } else { "free" };
            if let Err(e) = (0..5).try_for_each(|_| stepper.step().map(|_| ())) {
                println!("tree_chain/{name}/{links}: not measured, a step failed: {e}");
                continue;
            }
            // Every 0.2 s the chain starts over (a fall of many steps
            // would fold the free chain ever tighter).
            group.bench_with_input(BenchmarkId::new(name, links), &links, |b, _| {
                b.iter(|| {
                    if stepper.time() > 0.2 {
                        stepper.reset(&rest.0, &rest.1, &rest.2).expect("a start");
                    }
                    stepper.step().expect("a step")
                })
            });
        }
    }
    for links in [10, 100, 1000] {
        let model = chain(links, false);
        let n = model.tree.nq();
        let mechanism = ArticulatedMechanism::new(model, vec![0.0; n], vec![0.0; n], Vec::new())
            .expect("a mechanism");
        let mut settings = Settings::default();
        settings.ode.rtol = 1e-8;
        settings.ode.atol = 1e-10;
        settings.output_every = 1e-5;
        group.bench_with_input(BenchmarkId::new("event", links), &links, |b, _| {
            b.iter_custom(|iters| {
                let mut per_evaluation = Duration::ZERO;
                for _ in 0..iters {
                    let clock = Instant::now();
                    let out = simulate(&mechanism, 1e-5, &settings, &mut NoObserver);
                    per_evaluation += clock.elapsed() / out.stats.evaluations.max(1) as u32;
                }
                per_evaluation
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
