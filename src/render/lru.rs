//! A map that forgets its least recently used entries beyond a capacity: the shader and
//! pipeline caches, so that a long editing session (every structural edit is a new key)
//! does not keep every shader it ever made. Evicting only drops the cache's reference;
//! draws holding an `Arc` keep theirs.

use std::collections::HashMap;
use std::hash::Hash;

#[derive(Debug)]
pub struct LruMap<K, V> {
    entries: HashMap<K, (V, u64)>,
    clock: u64,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V> LruMap<K, V> {
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            clock: 0,
            capacity: capacity.max(1),
        }
    }

    /// The value of `key`, marked as just used.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|(v, used)| {
            *used = clock;
            &*v
        })
    }

    /// Inserts (or replaces) `key`, marked as just used, then drops the least recently
    /// used entries that `evictable` allows until at most `capacity` remain (the new entry
    /// is never dropped).
    pub fn insert(&mut self, key: K, value: V, evictable: impl Fn(&V) -> bool) {
        self.clock += 1;
        self.entries.insert(key.clone(), (value, self.clock));
        let excess = self.entries.len().saturating_sub(self.capacity);
        if excess == 0 {
            return;
        }
        let mut candidates: Vec<(u64, K)> = self
            .entries
            .iter()
            .filter(|(k, (v, _))| **k != key && evictable(v))
            .map(|(k, (_, used))| (*used, k.clone()))
            .collect();
        candidates.sort_unstable_by_key(|(used, _)| *used);
        for (_, k) in candidates.into_iter().take(excess) {
            self.entries.remove(&k);
        }
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.values().map(|(v, _)| v)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgets_the_least_recently_used_evictable_entries() {
        let mut m = LruMap::new(2);
        m.insert("a", 1, |_| true);
        m.insert("b", 2, |_| true);
        assert_eq!(m.get(&"a"), Some(&1));
        m.insert("c", 3, |_| true);
        // "b" was used least recently.
        assert_eq!(m.get(&"b"), None);
        assert_eq!(m.get(&"a"), Some(&1));
        assert_eq!(m.get(&"c"), Some(&3));
        // Entries the predicate protects stay, even beyond the capacity.
        m.insert("d", 0, |v| *v != 0);
        m.insert("e", 0, |v| *v != 0);
        assert_eq!(m.len(), 2);
        assert_eq!(m.get(&"d"), Some(&0));
        assert_eq!(m.get(&"e"), Some(&0));
        m.insert("f", 5, |v| *v != 0);
        assert_eq!(m.len(), 3, "only protected entries besides the new one");
    }
}
