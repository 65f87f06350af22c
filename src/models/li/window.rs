//! The window a run is measured over, throughput and link busy shares
//! alike: from the latest end of a worker's last warm-up step to the
//! earliest end of a worker's last step. Both ends are instants of the
//! run, so the links' busy time is read there as the run passes them.

use super::ps_links::{Busy, Links};

pub struct Window {
    /// Steps each worker leaves out as warm-up, and its steps.
    skip: usize,
    steps: usize,
    /// Workers still in their warm-up.
    warming: u32,
    closed: bool,
    /// The window [s], and the links' busy time at each end.
    pub from: f64,
    pub to: f64,
    busy_from: Busy,
    busy_to: Busy,
}

impl Window {
    /// For `workers` workers of `steps` steps, `warmup` of them left out
    /// (at most all but the last), on `servers` PS.
    pub fn new(workers: u32, steps: u32, warmup: u32, servers: usize) -> Self {
        let skip = warmup.min(steps.saturating_sub(1)) as usize;
        let none = Busy {
            down: vec![0.0; servers],
            up: vec![0.0; servers],
        };
        Window {
            skip,
            steps: steps as usize,
            warming: if skip == 0 { 0 } else { workers },
            closed: false,
            from: 0.0,
            to: 0.0,
            busy_from: none.clone(),
            busy_to: none,
        }
    }

    /// A worker ended its `done`-th step at `t`.
    #[inline(always)]
    pub fn step_ended(&mut self, done: usize, t: f64, links: &Links) {
        if done == self.skip && self.warming > 0 {
            self.warming -= 1;
            if self.warming == 0 {
                self.from = t;
                self.busy_from = links.busy_until(t);
            }
        }
        if done == self.steps && !self.closed {
            self.closed = true;
            self.to = t;
            self.busy_to = links.busy_until(t);
        }
    }

    /// Its length [s]; 0 when a worker finished before the last one's
    /// warm-up ended (nothing is measured).
    pub fn span(&self) -> f64 {
        if self.closed && self.to > self.from {
            self.to - self.from
        } else {
            0.0
        }
    }

    /// The share of the window each PS's downlink and uplink was busy.
    pub fn busy_shares(&self) -> (Vec<f64>, Vec<f64>) {
        let span = self.span();
        let share = |to: &[f64], from: &[f64]| -> Vec<f64> {
            to.iter()
                .enumerate()
                .map(|(i, b)| {
                    let before = from.get(i).copied().unwrap_or(0.0);
                    // Rounding of the sums may pass 1 by a hair.
                    if span > 0.0 {
                        ((b - before) / span).clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        (
            share(&self.busy_to.down, &self.busy_from.down),
            share(&self.busy_to.up, &self.busy_from.up),
        )
    }
}
