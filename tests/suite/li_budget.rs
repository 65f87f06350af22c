//! Li et al.'s work and amounts, bounded before anything runs: the ops an
//! evaluation simulates are stated exactly for every way a profile arrives
//! (and match the simulation's own count of them); a 100,000-op profile is
//! refused by that budget or evaluated, never left running; amounts out of
//! their range are refused at the profile with the range and the value; a
//! profile that moves no bytes has no link bound; a cycle through 100,000
//! ops is found in linear time and named in a short message.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use ddnn_planner::models::li::eval::{ops_simulated, prepare};
use ddnn_planner::models::li::generate::{count, from_layers, OpCount};
use ddnn_planner::models::li::lin::steps_to_trace;
use ddnn_planner::models::li::presets::{example, INCEPTION_V3_LAYERS};
use ddnn_planner::models::li::profile::{Op, Profile, Resource};
use ddnn_planner::models::li::report::NO_LINK_BOUND;
use ddnn_planner::models::li::section::{settings, Generate, Granularity, LiSettings, ID};
use ddnn_planner::models::li::sim::{simulate, Outcome, Setup};
use ddnn_planner::models::{by_id, evaluate, Model, Unavailable};
use ddnn_planner::report::{Report, Value};
use ddnn_planner::scenario::Scenario;
use ddnn_planner::workload::table::parse_layer_table;
use ddnn_planner::workload::Network;

fn li() -> &'static dyn Model {
    by_id(ID).unwrap_or_else(|| panic!("Li et al. is registered"))
}

fn op(name: String, resource: Resource, deps: Vec<u32>) -> Op {
    Op {
        name,
        resource,
        deps,
        tensor: None,
    }
}

/// The example with `p` as its profile and these settings.
fn with(p: Profile, f: impl FnOnce(&mut LiSettings)) -> Scenario {
    let mut s = example();
    let mut c = LiSettings {
        profile: Some(p),
        ..settings(&s)
    };
    c.generate = None;
    f(&mut c);
    s.set_section(ID, &c);
    s
}

/// `layers` layers, each a downlink, a compute, an uplink and a PS update,
/// chained: 4 × `layers` ops; each transfer 1 kB, each compute 1 ms.
fn layered(layers: u32) -> Profile {
    let mut ops = Vec::new();
    let mut row = Vec::new();
    for l in 0..layers {
        let b = 4 * l;
        let mut fwd = vec![b];
        if l > 0 {
            fwd.push(b - 3);
        }
        ops.push(op(format!("recv {l}"), Resource::Downlink, vec![]));
        ops.push(op(format!("fwd {l}"), Resource::Worker, fwd));
        ops.push(op(format!("send {l}"), Resource::Uplink, vec![b + 1]));
        ops.push(op(format!("apply {l}"), Resource::Ps, vec![b + 2]));
        row.extend([1e3, 1e-3, 1e3, 1e-4]);
    }
    Profile {
        name: format!("{layers} layers"),
        batch: 8,
        ops,
        steps: vec![row],
    }
}

fn fields(u: &Unavailable) -> Vec<(String, String)> {
    u.errors()
        .iter()
        .map(|e| (e.field.clone(), e.message.clone()))
        .collect()
}

#[test]
fn a_generated_profile_is_counted_as_it_would_be_made() {
    let inception = Network::from_layers(
        "Inception v3",
        parse_layer_table(INCEPTION_V3_LAYERS).unwrap_or_else(|e| panic!("{e:?}")),
    );
    let vgg = example().workload.network;
    for net in [&inception, &vgg] {
        for (granularity, batch_norm) in [
            (Granularity::Layer, false),
            (Granularity::Layer, true),
            (Granularity::Op, false),
            (Granularity::Op, true),
        ] {
            let g = Generate {
                granularity,
                batch_norm,
                profiled_steps: 2,
                ..Generate::default()
            };
            let p = from_layers(net, 1e13, 32, &g, 1);
            let what = format!("{} {granularity:?} {batch_norm}", net.name);
            assert_eq!(count(net, &g), OpCount::of(&p), "{what}");
        }
    }
    // Inception per op with BatchNorm: the docs' 1,512 ops, 568 transfers.
    let g = Generate {
        granularity: Granularity::Op,
        batch_norm: true,
        ..Generate::default()
    };
    let c = count(&inception, &g);
    assert_eq!((c.ops, c.downlinks, c.uplinks), (1512, 190, 378));
}

/// The runs an evaluation of `s` makes (`eval::evaluate`): each seed of
/// each W, the timeline, one worker for Lin et al.'s phases.
fn runs(s: &Scenario) -> Vec<Outcome> {
    let (set, profile, _, base) = prepare(s).unwrap_or_else(|e| panic!("{e:?}"));
    let mut out = Vec::new();
    for w in 1..=set.max_workers {
        for k in 0..u64::from(set.seeds) {
            let run = Setup {
                workers: w,
                seed: base.seed + k,
                ..base.clone()
            };
            out.push(simulate(&profile, &run));
        }
    }
    let timeline = Setup {
        workers: set.timeline_workers.min(set.max_workers),
        steps: set.steps.min(3),
        warmup: 0,
        trace_steps: 3,
        ..base.clone()
    };
    out.push(simulate(&profile, &timeline));
    let traced = steps_to_trace(profile.ops.len(), set.steps);
    let one = Setup {
        workers: 1,
        steps: traced,
        warmup: 0,
        trace_steps: traced,
        ..base
    };
    out.push(simulate(&profile, &one));
    out
}

#[test]
fn a_generated_profile_over_the_op_limit_is_refused_before_it_is_made() {
    // 7,000 convolutions per op with BatchNorm: 16 ops each, 112,000.
    let mut s = example();
    s.workload.network = Network::from_layers(
        "deep",
        (0..7000)
            .map(|i| ddnn_planner::workload::Layer::conv(&format!("c{i}"), 8, 3, 8, 8))
            .collect(),
    );
    let mut c = settings(&s);
    if let Some(g) = c.generate.as_mut() {
        g.granularity = Granularity::Op;
        g.batch_norm = true;
    }
    s.set_section(ID, &c);
    let errs = ddnn_planner::models::validate_for(li(), &s);
    assert!(
        errs.iter().any(|e| e.field == "workload.network.layers"
            && e.message
                .contains("112,000 ops per step, more than the 100,000")),
        "{errs:?}"
    );
    // Per layer, 35,000 ops: accepted.
    if let Some(g) = c.generate.as_mut() {
        g.granularity = Granularity::Layer;
    }
    s.set_section(ID, &c);
    assert!(ddnn_planner::models::validate_for(li(), &s).is_empty());
}

#[test]
fn the_work_stated_is_what_the_simulation_runs() {
    // The example's generated VGG-16 (80 ops per step, 32 transfers), with
    // a parse overhead (one more op per transfer) and a window no tensor
    // exceeds (so each transfer is one chunk: one event per op).
    let mut s = example();
    let mut c = settings(&s);
    (
        c.steps,
        c.warmup,
        c.max_workers,
        c.seeds,
        c.timeline_workers,
    ) = (7, 2, 3, 2, 2);
    c.beta_s = 1e-4;
    c.window_bytes = 1e10;
    s.set_section(ID, &c);
    let stated = li().work(&s);
    assert_eq!(stated.len(), 1);
    assert_eq!(stated[0].unit, "ops simulated");
    let per_step = 80.0 + 32.0;
    // Σ W = 6 × 2 seeds × 7 steps, the timeline 2 × 3, Lin et al. 1 × 7.
    assert_eq!(stated[0].units, per_step * (6.0 * 2.0 * 7.0 + 6.0 + 7.0));
    let ran: u64 = runs(&s).iter().map(|o| o.events).sum();
    assert_eq!(ran as f64, stated[0].units);
    // The same profile inline, and named by a link: the same ops.
    let (_, profile, generated, _) = prepare(&s).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(generated);
    let mut inline = s.clone();
    let mut c = settings(&s);
    c.profile = Some(profile);
    inline.set_section(ID, &c);
    assert_eq!(li().work(&inline), stated);
    let large = with(layered(10_000), |_| {});
    let (linked, _) = ddnn_planner::models::for_link(&large);
    let r = settings(&linked)
        .profile_ref
        .unwrap_or_else(|| panic!("named"));
    assert_eq!(r.ops, 40_000);
    let units = ops_simulated(&large, &settings(&large));
    assert_eq!(ops_simulated(&linked, &settings(&linked)), units);
    // The example's Σ W to 8 × 3 seeds × 1000 steps, the timeline 2 × 3,
    // Lin et al. one step (as many as 200,000 segments hold at 3 an op).
    assert_eq!(units, 40_000.0 * (36.0 * 3.0 * 1000.0 + 2.0 * 3.0 + 1.0));
}

#[test]
fn several_ps_state_the_passes_their_shares_take() {
    // The example's VGG-16 per layer (16 downlinks, 16 uplinks) on 3 PS:
    // every chunk start and end passes over the chunks in service, at
    // most W × (3 + 3) of them.
    let mut s = example();
    s.hardware.cluster.ps.count = 3;
    let mut c = settings(&s);
    (
        c.steps,
        c.warmup,
        c.max_workers,
        c.seeds,
        c.timeline_workers,
    ) = (6, 1, 4, 1, 2);
    s.set_section(ID, &c);
    let work = li().work(&s);
    assert_eq!(work.len(), 2, "{work:?}");
    // Per worker-step 2 × 32 transfers × 6 chunks a worker; Σ W² to 4 is
    // 30, × 6 steps; the timeline 2² × 3 steps; Lin et al. 1 × 6.
    let stated = 2.0 * 32.0 * 6.0 * (30.0 * 6.0 + 4.0 * 3.0 + 6.0);
    assert_eq!(work[1].units, stated);
    assert_eq!(work[1].field, "hardware.cluster.ps.count");
    let passed: u64 = runs(&s).iter().map(|o| o.chunk_visits).sum();
    assert!(passed as f64 <= stated, "{passed} > {stated}");
    // A bound of the right size, not a vacuous one.
    assert!(passed as f64 >= stated / 20.0, "{passed} ≪ {stated}");
    // One PS: no such passes, and no such measure.
    s.hardware.cluster.ps.count = 1;
    assert_eq!(li().work(&s).len(), 1);
    assert!(runs(&s).iter().all(|o| o.chunk_visits == 0));
    // Inception per op on 2 PS, W to 8 × 1000 steps: refused at the PS
    // count, within the ops budget.
    let inception = ddnn_planner::models::li::presets::inception_v3_profile()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mut s = with(inception, |c| {
        (c.steps, c.warmup, c.max_workers, c.seeds) = (1000, 50, 8, 1);
    });
    s.hardware.cluster.ps.count = 2;
    let work = li().work(&s);
    assert!(work[0].fits(), "{work:?}");
    match evaluate(li(), &s) {
        Err(u) => assert!(
            fields(&u)
                .iter()
                .any(|(f, m)| f == "hardware.cluster.ps.count"
                    && m.contains("chunk visits to share several PS links, more than the")),
            "{u:?}"
        ),
        Ok(_) => panic!("over its budget, Li et al. ran"),
    }
}

#[test]
#[cfg(not(target_arch = "wasm32"))]
fn a_100k_op_profile_is_refused_by_the_budget_or_evaluated() {
    let p = layered(25_000);
    assert!(p.validate().is_empty(), "{:?}", p.validate());
    // The defaults: 100,000 ops × 1000 steps × Σ W to 16 × 3 seeds, over
    // the budget: refused at the steps, before anything runs.
    let s = with(p.clone(), |c| {
        let d = LiSettings::default();
        (c.steps, c.warmup, c.max_workers, c.seeds) = (d.steps, d.warmup, d.max_workers, d.seeds);
    });
    assert_eq!(
        li().work(&s)[0].units,
        1e5 * (136.0 * 3.0 * 1000.0 + 2.0 * 3.0 + 1.0)
    );
    match evaluate(li(), &s) {
        Err(u) => assert!(
            fields(&u).iter().any(|(f, m)| f == "models.li.steps"
                && m.contains("ops simulated, more than the")
                && m.contains("reduce")),
            "{u:?}"
        ),
        Ok(_) => panic!("over its budget, Li et al. ran"),
    }
    // A few steps of one worker: evaluated, with flow control on and off
    // (25,000 streams ready at once, served by rank).
    for flow_control in [true, false] {
        let s = with(p.clone(), |c| {
            (
                c.steps,
                c.warmup,
                c.max_workers,
                c.seeds,
                c.timeline_workers,
            ) = (3, 1, 1, 1, 1);
            c.flow_control = flow_control;
            c.order = ddnn_planner::models::li::section::StreamOrder::CriticalPath;
        });
        assert!(li().work(&s)[0].fits());
        let r = evaluate(li(), &s).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(r.non_finite().is_none());
        let Some(Value::Number { value, .. }) = r.figure("one-worker").map(|f| f.value.clone())
        else {
            panic!("no one-worker figure")
        };
        assert!(value > 0.0, "{value}");
    }
}

#[test]
fn amounts_out_of_range_are_refused_at_the_profile_with_their_range() {
    for (resource, amount, range, got) in [
        (
            Resource::Worker,
            1e308,
            "0 or between 1e-15 and 1,000,000 s",
            "(got 1e308 s)",
        ),
        (
            Resource::Ps,
            1e-320,
            "0 or between 1e-15 and 1,000,000 s",
            "(got 1e-320 s)",
        ),
        (
            Resource::Uplink,
            1e308,
            "0 or between 1e-15 and 1,000,000,000,000 B",
            "(got 1e308 B)",
        ),
        (
            Resource::Downlink,
            -1.0,
            "0 or between 1e-15 and 1,000,000,000,000 B",
            "(got −1 B)",
        ),
    ] {
        let mut p = layered(2);
        let i = p
            .ops
            .iter()
            .position(|o| o.resource == resource)
            .unwrap_or(0);
        p.steps[0][i] = amount;
        let name = p.ops[i].name.clone();
        let s = with(p.clone(), |_| {});
        let errs = ddnn_planner::models::validate_for(li(), &s);
        let at_profile: Vec<&str> = errs
            .iter()
            .filter(|e| e.field == "models.li.profile")
            .map(|e| e.message.as_str())
            .collect();
        assert_eq!(at_profile.len(), 1, "{errs:?}");
        let m = at_profile[0];
        assert!(m.contains(&format!("op {i} '{name}'")), "{m}");
        assert!(m.contains(range), "{m}");
        assert!(m.contains(got), "{m}");
        // Evaluated anyway, and as a file: the same refusal.
        match evaluate(li(), &s) {
            Err(u) => assert!(fields(&u).iter().any(|(_, x)| x == m), "{u:?}"),
            Ok(_) => panic!("{amount} ran"),
        }
        let json = serde_json::to_string(&p).unwrap_or_default();
        let read = Profile::from_json(&json)
            .map(|_| ())
            .map_err(|e| format!("{e:?}"));
        assert!(read.as_ref().is_err_and(|e| e.contains(got)), "{read:?}");
    }
}

#[test]
fn a_profile_moving_no_bytes_has_no_link_bound() {
    // Compute only: no transfers at all.
    let compute_only = Profile {
        name: "compute only".into(),
        batch: 4,
        ops: vec![
            op("fwd".into(), Resource::Worker, vec![]),
            op("bwd".into(), Resource::Worker, vec![0]),
            op("apply".into(), Resource::Ps, vec![1]),
        ],
        steps: vec![vec![0.01, 0.02, 0.001]],
    };
    // Nothing the coarse Cynthia estimate reads (no worker compute, no
    // downlink): it is no number either.
    let ps_only = Profile {
        name: "PS only".into(),
        batch: 4,
        ops: vec![op("apply".into(), Resource::Ps, vec![])],
        steps: vec![vec![0.01]],
    };
    for p in [compute_only, ps_only] {
        let s = with(p.clone(), |c| {
            (c.steps, c.warmup, c.max_workers, c.seeds) = (20, 2, 3, 1);
        });
        let r: Report = evaluate(li(), &s).unwrap_or_else(|e| panic!("{}: {e:?}", p.name));
        assert_eq!(
            r.figure("link-bound").map(|f| f.value.clone()),
            Some(Value::text(NO_LINK_BOUND)),
            "{}",
            p.name
        );
        assert!(r.non_finite().is_none(), "{:?}", r.non_finite());
        let text = ddnn_planner::report::text::table(&r);
        let csv = ddnn_planner::report::csv::csv(std::slice::from_ref(&r));
        for shown in [&text, &csv] {
            let words: Vec<&str> = shown.split(|c: char| !c.is_ascii_alphanumeric()).collect();
            assert!(
                !words.iter().any(|w| ["NaN", "inf", "infinity"].contains(w)),
                "{}: {shown}",
                p.name
            );
        }
    }
}

#[test]
fn a_cycle_through_100k_ops_is_named_in_a_short_message() {
    // Op i waits for op i − 1, op 0 for the last: one cycle of them all.
    let n = 100_000u32;
    let p = Profile {
        name: "ring".into(),
        batch: 1,
        ops: (0..n)
            .map(|i| {
                let before = if i == 0 { n - 1 } else { i - 1 };
                op(format!("op {i}"), Resource::Worker, vec![before])
            })
            .collect(),
        steps: vec![vec![1e-3; n as usize]],
    };
    let errs = p.validate();
    assert_eq!(errs.len(), 1, "{} problems", errs.len());
    let m = &errs[0];
    assert!(m.chars().count() < 300, "{} characters", m.chars().count());
    assert!(
        m.contains("'op 0' → 'op 1' → 'op 2'")
            && m.contains("… → 'op 0' (100,000 ops in the cycle)"),
        "{m}"
    );
    // A short cycle behind a long chain: only the cycle is named.
    let mut q = p.clone();
    q.ops[0].deps = vec![];
    q.ops[10].deps = vec![9, 12];
    let errs = q.validate();
    assert_eq!(
        errs,
        vec!["the ops wait for each other in a cycle: 'op 10' → 'op 11' → 'op 12' → 'op 10' (3 ops in the cycle)".to_string()]
    );
}
