//! `lab run NAME --ask`: predict, then look. Before each request of an experiment the learner sees
//! it (redacted, byte for byte) and types the status they expect, one line on standard input (a
//! terminal or a pipe); then the answer comes, with the stage of the receive order that decided
//! it, as the server's own watch line names it, and `right` or `wrong` for the guess. An
//! observation with no request to show first (a watched stream, a browser, a client's opening) is
//! asked for once its step has run, before its answer is printed. The header says what is
//! tried, the explanation comes after the last answer, and the run ends with `your guesses: N
//! right of M`, apart from the exit status, which counts only the lab's own predictions.
//!
//! A person may take minutes: each request goes out only after its guess, on a fresh connection
//! (so no idle deadline of the server runs while they think), and the server's sessions live
//! [`PATIENCE`], a lifetime no experiment studies.
//!
//! Not here: the experiments (`lab`) or how a request is sent and judged (`scene`, `case`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::BufRead;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loopback_mcp_http::client::trace::TraceMode;
use loopback_mcp_http::limits::Limits;
use loopback_mcp_http::server::watch::Watch;

use super::case::Observation;
use super::local::LocalServer;
use super::scene::Scene;

/// A session's lifetime while a person is asked: no experiment studies it, and the 60 s of
/// `serve` would end a session opened at the start before a slow learner's last guess.
pub const PATIENCE: Duration = Duration::from_secs(60 * 60);

/// What `--ask` says first about time: how long it waits, and what it changed for that.
pub const PATIENCE_TEXT: &str = "as long as you take, up to an hour an experiment. Each request \
     goes out after your guess, on a fresh connection; sessions live an hour here (serve's: 60 s), \
     a lifetime no experiment studies. A stream watched, a browser or a client's opening has run and ended before you are \
     asked: only its answer waits.";

/// A guess made for a request not yet judged, with how many watch lines there were when its
/// request was sent (none for a guess without a request shown).
type Guess = (String, Option<usize>);

/// The guesses (oldest first), the watch lines, and how many guesses were right, of one `--ask`
/// run.
pub struct Asking<R> {
    input: Rc<RefCell<R>>,
    /// The input is not a terminal: a guess is printed after its prompt, as typing would show it.
    echo: bool,
    guesses: Rc<RefCell<VecDeque<Guess>>>,
    lines: Arc<Mutex<Vec<String>>>,
    pub right: usize,
    pub asked: usize,
    /// The budgets of each experiment's server: [`Asking::limits`].
    limits: Limits,
}

impl<R: BufRead + 'static> Asking<R> {
    /// Asking on `input`, echoing each guess when `echo`.
    pub fn new(input: R, echo: bool) -> Asking<R> {
        Asking {
            input: Rc::new(RefCell::new(input)),
            echo,
            guesses: Rc::new(RefCell::new(VecDeque::new())),
            lines: Arc::new(Mutex::new(Vec::new())),
            right: 0,
            asked: 0,
            limits: Limits { session_ttl: PATIENCE, ..LocalServer::few_workers_limits() },
        }
    }

    /// The budgets each experiment's server starts with: the lab's, with a session living
    /// [`PATIENCE`].
    #[cfg(test)]
    pub fn limits(&mut self) -> &mut Limits {
        &mut self.limits
    }

    /// A scene on a watched server of its own whose every request is shown and guessed first.
    /// A guess an earlier experiment left unjudged (it failed on the way) is dropped.
    pub fn scene(&self, steps: &[super::case::Step]) -> Result<Scene, String> {
        self.guesses.borrow_mut().clear();
        let lines = Arc::clone(&self.lines);
        let sink = move |text: &str| {
            if let Ok(mut lines) = lines.lock() {
                lines.extend(text.lines().map(str::to_owned));
            }
        };
        let watch = Arc::new(Watch::new(false, Arc::new(sink)));
        let local = LocalServer::start_watched(TraceMode::Off, watch, self.limits)?;
        let mut scene = Scene::open_on(local, steps)?;
        let (input, guesses, echo) = (Rc::clone(&self.input), Rc::clone(&self.guesses), self.echo);
        let watched = Arc::clone(&self.lines);
        scene.before_send(Box::new(move |what, request| {
            outln!("   next     {what}");
            for line in request.lines() {
                outln!("            > {line}");
            }
            let guess = read_guess(&mut *input.borrow_mut(), echo);
            let sent_after = watched.lock().map_or(0, |lines| lines.len());
            guesses.borrow_mut().push_back((guess, Some(sent_after)));
        }));
        Ok(scene)
    }

    /// Asks for a guess for `observation` when its request was not shown first (a watched
    /// stream, a browser, a client's opening): the step has run, its answer not yet printed.
    pub fn ensure_guess(&mut self, observation: &Observation) {
        if self.guesses.borrow().is_empty() {
            outln!("   next     {}", observation.what);
            let guess = read_guess(&mut *self.input.borrow_mut(), self.echo);
            // No line of this server's watch belongs to it.
            self.guesses.borrow_mut().push_back((guess, None));
        }
    }

    /// What the oldest guess comes to for `observation`: the stage that decided (when its
    /// request has a line of this server's watch), and right or wrong.
    pub fn judge(&mut self, observation: &Observation) {
        let Some((guess, sent_after)) = self.guesses.borrow_mut().pop_front() else { return };
        // The first exchange line written after the request was sent is its own.
        let lines = self.lines.lock().ok();
        let stage = sent_after.zip(lines.as_deref()).and_then(|(sent_after, lines)| {
            lines.iter().skip(sent_after).find_map(|line| stage_of(line))
        });
        if let Some(stage) = stage {
            outln!("            decided   {stage}");
        }
        let right = guess.parse::<u16>().ok().is_some_and(|g| Some(g) == observation.status);
        self.asked += 1;
        self.right += usize::from(right);
        let word = if right { "right" } else { "wrong" };
        let said = if guess.is_empty() { "nothing" } else { guess.as_str() };
        outln!("            you said  {said}: {word}");
    }
}

/// One line of `input`: the guess, printed after its prompt when `echo` (the input is no
/// terminal) or when the input ended without a newline. An input that ended is no guess.
fn read_guess<R: BufRead>(input: &mut R, echo: bool) -> String {
    out!("   your guess, the status: ");
    let mut line = String::new();
    let _ = input.read_line(&mut line);
    let guess = line.trim().to_owned();
    if echo || !line.ends_with('\n') {
        outln!("{guess}");
    }
    guess
}

/// The stage a watch line names: the text in parentheses before its byte counts.
fn stage_of(line: &str) -> Option<String> {
    let decided = line.split(" in ").next()?;
    let open = decided.rfind('(')?;
    let close = decided[open..].find(')')? + open;
    Some(decided[open + 1..close].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stage_is_read_from_a_watch_line() {
        let rows: [(&str, Option<&str>); 3] = [
            (
                "c3 r1 POST /mcp [legacy] -> 401 missing_credentials (stage 5: token) in 412 B, out 251 B",
                Some("stage 5: token"),
            ),
            (
                "c4 r1 POST /mcp [modern] -> 400 header_mismatch (2026-07-28 step 2: mirrored headers) in 9 B, out 9 B",
                Some("2026-07-28 step 2: mirrored headers"),
            ),
            (
                "c4 closed without an answer: socket_read_timeout passed in a head, 22 B received",
                None,
            ),
        ];
        for (line, stage) in rows {
            assert_eq!(stage_of(line).as_deref(), stage, "{line}");
        }
    }
}
