//! The stack of open containers the decoder and the encoder keep instead of recursing.
//!
//! Its first [`INLINE`] elements live inline and only deeper ones go to a `Vec`, so a document
//! nested up to that deep (a JSON-RPC envelope and the usual params, `initialize`'s included) is
//! read and written without an allocation for the stack; deeper arguments spill. It has no
//! bound of its own: the decoder checks its depth budget before every push.

/// How many elements live inline before the stack spills into a `Vec`.
const INLINE: usize = 4;

/// A last-in, first-out stack whose first [`INLINE`] elements are stored inline.
pub(super) struct Stack<T> {
    inline: [Option<T>; INLINE],
    /// How many of `inline` hold an element; `spill` is empty unless all of them do.
    used: usize,
    spill: Vec<T>,
}

impl<T> Stack<T> {
    pub fn new() -> Self {
        Stack { inline: [const { None }; INLINE], used: 0, spill: Vec::new() }
    }

    /// How many elements it holds.
    pub fn len(&self) -> usize {
        self.used + self.spill.len()
    }

    pub fn push(&mut self, element: T) {
        match self.inline.get_mut(self.used) {
            Some(slot) => {
                *slot = Some(element);
                self.used += 1;
            }
            None => self.spill.push(element),
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        if let Some(element) = self.spill.pop() {
            return Some(element);
        }
        self.used = self.used.checked_sub(1)?;
        self.inline[self.used].take()
    }

    pub fn last_mut(&mut self) -> Option<&mut T> {
        match self.spill.last_mut() {
            Some(element) => Some(element),
            None => self.inline.get_mut(self.used.checked_sub(1)?)?.as_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_come_back_last_in_first_out_at_every_depth() {
        // Below, at and past the inline room, and pushing again after popping into it.
        for depth in [1, INLINE - 1, INLINE, INLINE + 1, 3 * INLINE] {
            let mut stack = Stack::new();
            assert_eq!((stack.len(), stack.pop()), (0, None));
            for n in 1..=depth {
                stack.push(n);
            }
            assert_eq!(stack.len(), depth);
            if let Some(top) = stack.last_mut() {
                *top *= 10;
            }
            assert_eq!(stack.pop(), Some(depth * 10), "depth {depth}");
            stack.push(depth + 1);
            let popped: Vec<_> = std::iter::from_fn(|| stack.pop()).collect();
            let expected: Vec<_> = std::iter::once(depth + 1).chain((1..depth).rev()).collect();
            assert_eq!(popped, expected, "depth {depth}");
            assert_eq!((stack.len(), stack.last_mut()), (0, None));
        }
    }
}
