//! Work that must not share a browser task: jobs run in order, each
//! starting in a task of its own, and a job that returns a future holds
//! the queue until it completes (a sliced chart drawing spans tasks, and
//! two must not interleave).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;

use leptos::task::spawn_local;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

pub type Later = Pin<Box<dyn Future<Output = ()>>>;
/// A job; what it returns, if anything, the queue waits for.
pub type Job = Box<dyn FnOnce() -> Option<Later>>;

#[derive(Clone, Copy)]
pub enum Queue {
    /// Chart drawings: each after the next frame, so the browser lays out
    /// and paints what changed (new numbers, a new report) first, not
    /// inside plotly's measurements.
    Draws,
    /// Worker messages, acted on in the order they came.
    Inbox,
}

#[derive(Default)]
struct State {
    jobs: RefCell<VecDeque<Job>>,
    /// A job is scheduled or running.
    scheduled: Cell<bool>,
}

thread_local! {
    static DRAWS: State = State::default();
    static INBOX: State = State::default();
}

impl Queue {
    fn with<R>(self, f: impl FnOnce(&State) -> R) -> R {
        match self {
            Queue::Draws => DRAWS.with(f),
            Queue::Inbox => INBOX.with(f),
        }
    }

    pub fn push(self, job: Job) {
        self.with(|s| s.jobs.borrow_mut().push_back(job));
        self.schedule();
    }

    fn schedule(self) {
        if self.with(|s| s.scheduled.replace(true)) {
            return;
        }
        let run = Closure::once_into_js(move || self.run_one());
        let scheduled = web_sys::window().is_some_and(|w| match self {
            Queue::Inbox => w.set_timeout_with_callback(run.unchecked_ref()).is_ok(),
            Queue::Draws => {
                let after_frame = Closure::once_into_js(move || {
                    if let Some(w) = web_sys::window() {
                        let _ = w.set_timeout_with_callback(run.unchecked_ref());
                    }
                });
                w.request_animation_frame(after_frame.unchecked_ref())
                    .is_ok()
            }
        });
        if !scheduled {
            // No timers (no window): the jobs wait for the next push.
            self.with(|s| s.scheduled.set(false));
        }
    }

    fn run_one(self) {
        let job = self.with(|s| s.jobs.borrow_mut().pop_front());
        match job.and_then(|job| job()) {
            Some(later) => spawn_local(async move {
                later.await;
                self.next();
            }),
            None => self.next(),
        }
    }

    fn next(self) {
        self.with(|s| s.scheduled.set(false));
        if self.with(|s| !s.jobs.borrow().is_empty()) {
            self.schedule();
        }
    }
}
