//! Lin et al.'s coarse estimate, the queueing model the paper compares
//! against (Sec. 1, l.57; Sec. 4.4), in this product's reading: the paper
//! gives its inputs, not its equations.
//!
//! - **Phases**, as Lin et al. read them off one worker's packets: the
//!   downlink transmission (first downlink start to last downlink end of a
//!   step), the worker's computation (the interval from the end of the
//!   downlink transmission to the start of the uplink one), the uplink
//!   transmission, and the rest of the step. Measured on the one-worker
//!   simulation, so they hold the overlaps the paper says this model
//!   misreads.
//! - **Network**: W workers cycle through the phases one after another;
//!   each PS link direction is a queue (its share of the phase by the bytes
//!   placed on it), the computation and the rest are each worker's own
//!   (delays). Solved exactly by mean value analysis.
//!
//! With one worker it is the one-worker step, unless the transmissions
//! overlap each other; with many it saturates at the largest queue demand
//! (with one PS, the longer link phase), which overlap stretches well past
//! `bytes / B`.

use serde::Serialize;

use super::profile::{Profile, Resource};
use super::sim::{Lane, Outcome, Segment, MAX_SEGMENTS};

/// Mean phase lengths of one worker's step [s].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Phases {
    pub downlink: f64,
    pub compute: f64,
    pub uplink: f64,
    pub rest: f64,
    /// How long the uplink transmission began before the downlink one
    /// ended: the phases then add up to more than the step.
    pub overlap: f64,
    /// Steps measured.
    pub steps: u32,
}

impl Phases {
    pub fn step(&self) -> f64 {
        self.downlink + self.compute + self.uplink + self.rest
    }
}

/// How many one-worker steps to trace for the phases: up to 20, within
/// the segments a run keeps (at most three per op: two chunks and a
/// parse).
pub fn steps_to_trace(ops: usize, steps: u32) -> u32 {
    let fit = MAX_SEGMENTS / (3 * ops.max(1));
    (fit.clamp(1, 20) as u32).min(steps.max(1))
}

/// First start and last end of one kind of segment in a step.
#[derive(Clone, Copy)]
struct Span(f64, f64);

impl Span {
    fn widen(span: &mut Option<Span>, s: &Segment) {
        let w = span.get_or_insert(Span(s.start, s.end));
        w.0 = w.0.min(s.start);
        w.1 = w.1.max(s.end);
    }

    fn len(span: Option<Span>) -> f64 {
        span.map_or(0.0, |s| s.1 - s.0)
    }
}

#[derive(Clone, Copy, Default)]
struct Step {
    all: Option<Span>,
    down: Option<Span>,
    up: Option<Span>,
}

/// The phases of a one-worker run's traced steps, averaged over the steps
/// traced whole; `None` if none was.
pub fn phases(o: &Outcome) -> Option<Phases> {
    let segs = &o.segments;
    let last = segs.iter().map(|s| s.step).max()?;
    // A run that hit the segment limit may have cut its last step short.
    let whole = if segs.len() >= MAX_SEGMENTS {
        last - 1
    } else {
        last
    };
    let mut steps = vec![Step::default(); whole as usize + 1];
    for s in segs {
        let Some(step) = steps.get_mut(s.step as usize) else {
            continue;
        };
        Span::widen(&mut step.all, s);
        match s.lane {
            Lane::Down(_) => Span::widen(&mut step.down, s),
            Lane::Up(_) => Span::widen(&mut step.up, s),
            _ => {}
        }
    }
    let mut sum = Phases::default();
    // One worker starts at 0 and each step where the one before ended.
    let mut before = 0.0;
    for step in steps.iter().skip(1) {
        let Some(Span(_, end)) = step.all else {
            continue;
        };
        let downlink = Span::len(step.down);
        let uplink = Span::len(step.up);
        let received = step.down.map_or(before, |s| s.1);
        let sent = step.up.map_or(end, |s| s.0);
        let compute = (sent - received).max(0.0);
        sum.overlap += (received - sent).max(0.0);
        sum.downlink += downlink;
        sum.compute += compute;
        sum.uplink += uplink;
        sum.rest += (end - before - downlink - compute - uplink).max(0.0);
        sum.steps += 1;
        before = end;
    }
    if sum.steps == 0 {
        return None;
    }
    let n = f64::from(sum.steps);
    Some(Phases {
        downlink: sum.downlink / n,
        compute: sum.compute / n,
        uplink: sum.uplink / n,
        rest: sum.rest / n,
        overlap: sum.overlap / n,
        steps: sum.steps,
    })
}

/// Each PS's share of a direction's mean bytes per step, by placement.
pub fn shares(profile: &Profile, placement: &[u16], servers: u32, dir: Resource) -> Vec<f64> {
    let mut bytes = vec![0.0; servers.max(1) as usize];
    for (i, op) in profile.ops.iter().enumerate() {
        if op.resource == dir {
            let ps = placement.get(i).copied().unwrap_or(0) as usize;
            if let Some(b) = bytes.get_mut(ps) {
                *b += profile.mean_amount(i);
            }
        }
    }
    let total: f64 = bytes.iter().sum();
    if total > 0.0 {
        bytes.iter().map(|b| b / total).collect()
    } else {
        vec![0.0; bytes.len()]
    }
}

/// Steps per second of `n` customers in a closed network of queues with
/// service demands `queues` [s] and a delay `think` [s] (exact mean value
/// analysis).
pub fn mva(think: f64, queues: &[f64], n: u32) -> f64 {
    let mut waiting = vec![0.0; queues.len()];
    let mut x = 0.0;
    for k in 1..=n {
        let resp: Vec<f64> = queues
            .iter()
            .zip(&waiting)
            .map(|(d, q)| d * (1.0 + q))
            .collect();
        let cycle = think + resp.iter().sum::<f64>();
        if cycle <= 0.0 {
            return f64::INFINITY;
        }
        x = f64::from(k) / cycle;
        for (q, r) in waiting.iter_mut().zip(&resp) {
            *q = x * r;
        }
    }
    x
}

/// The estimate's inputs: the phases and each PS's share of each link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lin {
    pub phases: Phases,
    pub down_shares: Vec<f64>,
    pub up_shares: Vec<f64>,
}

impl Lin {
    pub fn of(profile: &Profile, one_worker: &Outcome, servers: u32) -> Option<Lin> {
        let phases = phases(one_worker).filter(|p| p.step() > 0.0)?;
        let at = |dir| shares(profile, &one_worker.placement, servers, dir);
        Some(Lin {
            phases,
            down_shares: at(Resource::Downlink),
            up_shares: at(Resource::Uplink),
        })
    }

    fn queues(&self) -> Vec<f64> {
        let p = &self.phases;
        let down = self.down_shares.iter().map(|s| s * p.downlink);
        let up = self.up_shares.iter().map(|s| s * p.uplink);
        down.chain(up).filter(|d| *d > 0.0).collect()
    }

    /// Samples/s of `w` workers.
    pub fn throughput(&self, w: u32, batch: f64) -> f64 {
        let p = &self.phases;
        batch * mva(p.compute + p.rest, &self.queues(), w)
    }

    /// Samples/s it tends to with many workers: batch over the largest
    /// queue demand.
    pub fn bound(&self, batch: f64) -> f64 {
        let longest = self.queues().into_iter().fold(0.0, f64::max);
        if longest > 0.0 {
            batch / longest
        } else {
            f64::INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn mva_by_hand() {
        // Think 1 s, one queue of 1 s. n = 1: X = 1/2, Q = 1/2.
        // n = 2: R = 1.5, X = 2/2.5 = 0.8, Q = 1.2.
        // n = 3: R = 2.2, X = 3/3.2 = 0.9375. Bound 1.
        assert!(close(mva(1.0, &[1.0], 1), 0.5));
        assert!(close(mva(1.0, &[1.0], 2), 0.8));
        assert!(close(mva(1.0, &[1.0], 3), 0.9375));
        assert!(mva(1.0, &[1.0], 200) <= 1.0);
        assert!(mva(1.0, &[1.0], 200) > 0.99);
        // Two equal queues, no think: n = 1, Q = 1/2 each; n = 2,
        // R = 1.5 each, X = 2/3.
        assert!(close(mva(0.0, &[1.0, 1.0], 2), 2.0 / 3.0));
        // Only a delay: n customers, n/think.
        assert!(close(mva(2.0, &[], 5), 2.5));
        assert_eq!(mva(0.0, &[], 3), f64::INFINITY);
    }

    fn seg(step: u32, lane: Lane, start: f64, end: f64) -> Segment {
        Segment {
            worker: 0,
            lane,
            op: 0,
            parse: false,
            step,
            start,
            end,
        }
    }

    fn outcome(segments: Vec<Segment>) -> Outcome {
        Outcome {
            throughput: 0.0,
            per_worker: vec![],
            down_busy: vec![],
            up_busy: vec![],
            end_s: 0.0,
            placement: vec![],
            segments,
            events: 0,
            chunk_visits: 0,
        }
    }

    #[test]
    fn phases_by_hand() {
        // Step 1: downlinks 0-1 and 0.5-2, compute 2-5, uplinks 4-6
        // (overlapping the compute) and 6.5-7, PS 7-7.5.
        // Step 2 (from 7.5): downlink 7.5-8.5, compute 8.5-9.5, no uplink.
        let o = outcome(vec![
            seg(1, Lane::Down(0), 0.0, 1.0),
            seg(1, Lane::Down(0), 0.5, 2.0),
            seg(1, Lane::Worker, 2.0, 5.0),
            seg(1, Lane::Up(0), 4.0, 6.0),
            seg(1, Lane::Up(0), 6.5, 7.0),
            seg(1, Lane::Ps(0), 7.0, 7.5),
            seg(2, Lane::Down(0), 7.5, 8.5),
            seg(2, Lane::Worker, 8.5, 9.5),
        ]);
        let p = phases(&o).unwrap_or_default();
        // Step 1: down 2, compute 4 - 2 = 2, up 3, rest 7.5 - 7 = 0.5.
        // Step 2: down 1, compute 1 (to the step's end), up 0, rest 0.
        assert_eq!(p.steps, 2);
        assert!(close(p.downlink, 1.5));
        assert!(close(p.compute, 1.5));
        assert!(close(p.uplink, 1.5));
        assert!(close(p.rest, 0.25));
        assert!(close(p.overlap, 0.0));
        assert!(close(p.step(), 9.5 / 2.0));
    }

    #[test]
    fn overlapping_transmissions_leave_no_compute() {
        // The uplink starts before the downlink ends: no computation
        // between them, and the phases add up to more than the step.
        let o = outcome(vec![
            seg(1, Lane::Down(0), 0.0, 3.0),
            seg(1, Lane::Worker, 0.5, 2.0),
            seg(1, Lane::Up(0), 2.0, 4.0),
        ]);
        let p = phases(&o).unwrap_or_default();
        assert!(close(p.compute, 0.0));
        assert!(close(p.overlap, 1.0));
        assert!(close(p.rest, 0.0));
        assert!(close(p.step(), 5.0));
        assert!(phases(&outcome(vec![])).is_none());
    }

    #[test]
    fn several_ps_split_the_link_phase_by_bytes() {
        let lin = Lin {
            phases: Phases {
                downlink: 2.0,
                compute: 1.0,
                uplink: 1.0,
                rest: 0.0,
                overlap: 0.0,
                steps: 1,
            },
            down_shares: vec![0.75, 0.25],
            up_shares: vec![0.5, 0.5],
        };
        // One worker: the whole cycle, 4 s.
        assert!(close(lin.throughput(1, 8.0), 2.0));
        // Many: the busiest queue, PS 1's downlink at 1.5 s a step.
        assert!(close(lin.bound(8.0), 8.0 / 1.5));
        assert!(lin.throughput(64, 8.0) <= lin.bound(8.0));
        assert!(lin.throughput(64, 8.0) > 0.95 * lin.bound(8.0));
    }
}
