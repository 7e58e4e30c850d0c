//! Short scratch slices on the stack: the derivative kernels run inside
//! the stepper's evaluations, where no allocation is wanted.

/// Slices this long or shorter live on the stack.
const STACK: usize = 16;

/// Calls `f` with a slice of `n` copies of `fill`, on the stack when `n`
/// is small (the usual case), on the heap otherwise.
pub(crate) fn with_slice<T: Copy, R>(n: usize, fill: T, f: impl FnOnce(&mut [T]) -> R) -> R {
    if n <= STACK {
        let mut a = [fill; STACK];
        f(&mut a[..n])
    } else {
        let mut v = vec![fill; n];
        f(&mut v)
    }
}
