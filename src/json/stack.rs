//! The stack of open containers the decoder and the encoder keep instead of recursing.
//!
//! Its top element lives inline and only the ones below it go to a `Vec`, so a document nested
//! one level deep (every JSON-RPC message without `params`) is read and written without an
//! allocation for the stack. It has no bound of its own: the decoder checks its depth budget
//! before every push.

/// A last-in, first-out stack whose top element is stored inline.
pub(super) struct Stack<T> {
    top: Option<T>,
    below: Vec<T>,
}

impl<T> Stack<T> {
    pub fn new() -> Self {
        Stack { top: None, below: Vec::new() }
    }

    /// How many elements it holds.
    pub fn len(&self) -> usize {
        self.below.len() + usize::from(self.top.is_some())
    }

    pub fn push(&mut self, element: T) {
        if let Some(previous) = self.top.replace(element) {
            self.below.push(previous);
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        let popped = self.top.take();
        self.top = self.below.pop();
        popped
    }

    pub fn last_mut(&mut self) -> Option<&mut T> {
        self.top.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_come_back_last_in_first_out() {
        let mut stack = Stack::new();
        assert_eq!((stack.len(), stack.pop()), (0, None));
        for n in 1..=3 {
            stack.push(n);
        }
        assert_eq!(stack.len(), 3);
        if let Some(top) = stack.last_mut() {
            *top = 30;
        }
        let popped: Vec<_> = std::iter::from_fn(|| stack.pop()).collect();
        assert_eq!(popped, [30, 2, 1]);
        assert_eq!((stack.len(), stack.last_mut()), (0, None));
    }
}
