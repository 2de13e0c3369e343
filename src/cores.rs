//! Work shared between the machine's cores, for large inputs only. Results always come back in
//! the order of the work given, so no output depends on which thread did what.

use std::sync::{Mutex, PoisonError};

/// Whether this process may run on more than one core.
pub fn several() -> bool {
    available() > 1
}

/// How many cores this process may run on (one when that cannot be told).
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// From this many nodes, work done once per node (planning, the checks) is worth a second core:
/// a node takes about a microsecond, a thread about a hundred.
const TWO_CORES_FROM_NODES: usize = 2_000;

/// How many threads per-node work over `nodes` nodes should use.
pub fn threads_for_nodes(nodes: usize) -> usize {
    if nodes >= TWO_CORES_FROM_NODES && several() {
        2
    } else {
        1
    }
}

/// `work` applied to each of `items` on up to `threads` threads (this one included), each taking
/// the next item not yet taken; the results in the items' order. A thread that cannot be started
/// leaves its share to the others, and a panic in `work` goes on in the caller.
pub fn map_in_order<T: Send, U: Send>(
    items: Vec<T>,
    threads: usize,
    work: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    if threads <= 1 {
        return items.into_iter().map(work).collect();
    }
    let count = items.len();
    let queue = Mutex::new(items.into_iter().enumerate());
    let next = || queue.lock().unwrap_or_else(PoisonError::into_inner).next();
    let drain = || {
        let mut done = Vec::new();
        while let Some((index, item)) = next() {
            done.push((index, work(item)));
        }
        done
    };
    let mut done: Vec<(usize, U)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads.clamp(1, count.max(1)))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, drain).ok())
            .collect();
        let mut done = drain();
        for other in others {
            done.extend(
                other
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        done
    });
    done.sort_unstable_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, result)| result).collect()
}

/// `work` applied to each index below `count`, in `threads` equal runs of indices, each on its
/// own core; the results in index order.
pub fn map_indices<U: Send>(
    count: usize,
    threads: usize,
    work: impl Fn(usize) -> U + Sync,
) -> Vec<U> {
    if threads <= 1 {
        return (0..count).map(work).collect();
    }
    let runs: Vec<_> = (0..threads)
        .map(|run| count * run / threads..count * (run + 1) / threads)
        .collect();
    let runs = map_in_order(runs, threads, |run| run.map(&work).collect::<Vec<U>>());
    let mut all = Vec::with_capacity(count);
    for mut run in runs {
        all.append(&mut run);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_the_order_given() {
        let items: Vec<u64> = (0..1000).collect();
        let slow_first = |item: u64| {
            if item < 10 {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            item * 3
        };
        let expected: Vec<u64> = (0..1000).map(|item| item * 3).collect();
        assert_eq!(map_in_order(items.clone(), 4, slow_first), expected);
        assert_eq!(map_in_order(items, 1, slow_first), expected);
        assert_eq!(
            map_in_order(Vec::<u64>::new(), 2, slow_first),
            Vec::<u64>::new()
        );
        for threads in [1, 2, 3] {
            assert_eq!(
                map_indices(7, threads, |index| index * 2),
                [0, 2, 4, 6, 8, 10, 12]
            );
            assert_eq!(map_indices(0, threads, |index| index), Vec::<usize>::new());
        }
    }

    #[test]
    #[should_panic(expected = "item 500")]
    fn a_panic_in_the_work_goes_on_in_the_caller() {
        let items: Vec<u32> = (0..1000).collect();
        map_in_order(items, 2, |item| assert_ne!(item, 500, "item {item}"));
    }
}
