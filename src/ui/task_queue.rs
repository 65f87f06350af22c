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
use wasm_bindgen::{JsCast, JsValue};

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
        let scheduled = match self {
            Queue::Inbox => new_task(move || self.run_one()),
            Queue::Draws => after_next_frame(move || self.run_one()),
        };
        if !scheduled {
            // No tasks can be made (no window): the jobs wait for the next push.
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

/// The channel, the jobs waiting for its messages, and its handler.
type Tasks = (
    web_sys::MessageChannel,
    RefCell<VecDeque<Box<dyn FnOnce()>>>,
    Closure<dyn FnMut()>,
);

thread_local! {
    /// A channel whose messages start tasks: unlike `setTimeout` from a
    /// timer's task, which the browser delays to 4 ms from the fifth
    /// nested call, a message is a task at once (a request's twenty
    /// messages were 80 ms of waits).
    static TASKS: Option<Tasks> = web_sys::MessageChannel::new().ok().map(|ch| {
        let on_message = Closure::<dyn FnMut()>::new(|| {
            let job = TASKS.with(|t| t.as_ref().and_then(|(_, jobs, _)| jobs.borrow_mut().pop_front()));
            if let Some(job) = job {
                job();
            }
        });
        ch.port1().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        (ch, RefCell::new(VecDeque::new()), on_message)
    });
}

/// Runs `job` in a task of its own after the next frame.
fn after_next_frame(job: impl FnOnce() + 'static) -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
    let after_frame = Closure::once_into_js(move || {
        new_task(job);
    });
    w.request_animation_frame(after_frame.unchecked_ref())
        .is_ok()
}

/// Runs `job` in a task of its own, soon (by `setTimeout` if no channel
/// could be made); false if no task can be made.
fn new_task(job: impl FnOnce() + 'static) -> bool {
    let mut job: Option<Box<dyn FnOnce()>> = Some(Box::new(job));
    TASKS.with(|t| {
        let Some((ch, jobs, _)) = t else { return };
        jobs.borrow_mut().extend(job.take());
        if ch.port2().post_message(&JsValue::NULL).is_err() {
            job = jobs.borrow_mut().pop_back();
        }
    });
    let Some(job) = job else {
        return true;
    };
    let Some(w) = web_sys::window() else {
        return false;
    };
    let run = Closure::once_into_js(job);
    w.set_timeout_with_callback(run.unchecked_ref()).is_ok()
}
