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
    /// inside plotly's measurements; and while the user types, after a
    /// pause of `TYPING_PAUSE_MS`, so a keystroke's numbers never wait
    /// behind the drawing of the one before.
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
            Queue::Draws => after_next_frame(move || self.run_when_not_typing()),
        };
        if !scheduled {
            // No tasks can be made (no window): the jobs wait for the next push.
            self.with(|s| s.scheduled.set(false));
        }
    }

    /// Runs the next job once the keyboard has been still for
    /// `TYPING_PAUSE_MS`.
    fn run_when_not_typing(self) {
        let still = typing_still_ms();
        if still >= TYPING_PAUSE_MS {
            self.run_one();
            return;
        }
        let wait = (TYPING_PAUSE_MS - still).ceil() as i32;
        if !after_ms(wait, move || self.run_when_not_typing()) {
            self.run_one();
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

/// How long the keyboard must be still before a chart draws [ms]: a
/// keystroke's numbers are on screen within a frame, and a drawing (10 to
/// 50 ms of plotly's work, in slices) started between two keystrokes
/// would hold the second one's frame back.
pub const TYPING_PAUSE_MS: f64 = 120.0;

thread_local! {
    /// When the last key went down on the page [ms, `performance.now()`].
    static LAST_KEY: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    /// Listens for keys on the whole document, from the first use on.
    static KEY_LISTENER: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>> = {
        let on_key = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(|ev: web_sys::KeyboardEvent| {
            LAST_KEY.with(|t| t.set(ev.time_stamp()));
        });
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| {
                d.add_event_listener_with_callback_and_bool("keydown", on_key.as_ref().unchecked_ref(), true)
                    .ok()
            })
            .map(|()| on_key)
    };
}

/// Listens for keys from now on (the page calls it once at its start).
pub fn watch_typing() {
    KEY_LISTENER.with(|_| ());
}

/// How long since the last key went down [ms] (infinite: none yet).
fn typing_still_ms() -> f64 {
    let last = LAST_KEY.with(Cell::get);
    super::now_ms() - last
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
pub fn after_next_frame(job: impl FnOnce() + 'static) -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
    let after_frame = Closure::once_into_js(move || {
        new_task(job);
    });
    w.request_animation_frame(after_frame.unchecked_ref())
        .is_ok()
}

/// Runs `job` once, in a task of its own after the next frame, or after
/// `ms` if no frame comes first (a hidden tab draws none).
pub fn after_next_frame_or(ms: i32, job: impl FnOnce() + 'static) {
    let job = std::rc::Rc::new(std::cell::Cell::new(Some(
        Box::new(job) as Box<dyn FnOnce()>
    )));
    let once = move || {
        if let Some(job) = job.take() {
            job();
        }
    };
    let (later, now) = (once.clone(), once.clone());
    let framed = after_next_frame(once);
    let timed = after_ms(ms, later);
    if !framed && !timed {
        // Nothing to wait on (no window): nothing draws either.
        now();
    }
}

/// Runs `job` in a timer task after `ms`; false if there is no window.
pub fn after_ms(ms: i32, job: impl FnOnce() + 'static) -> bool {
    let timer = Closure::once_into_js(job);
    web_sys::window().is_some_and(|w| {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(timer.unchecked_ref(), ms)
            .is_ok()
    })
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
