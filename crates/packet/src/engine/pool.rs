//! Packets live in one pool and travel by index, so forwarding never allocates.

use crate::packet::{HeaderExt, Packet};

/// Index of a packet in a [`PacketPool`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PacketId(pub u32);

/// A slab of packets with a free list. Slots are reused; the pool grows only when more
/// packets are alive at once than ever before.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    /// Per-scheme header fields, parallel to `slots`; only allocated once a scheme asks.
    ext: Vec<HeaderExt>,
    free: Vec<u32>,
}

impl PacketPool {
    /// An empty pool with room for `cap` packets.
    pub fn with_capacity(cap: usize) -> Self {
        PacketPool {
            slots: Vec::with_capacity(cap),
            ext: Vec::new(),
            free: Vec::with_capacity(cap),
        }
    }

    /// Stores `p` and returns its index.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                PacketId(i)
            }
            None => {
                self.slots.push(p);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// Returns a packet's slot to the pool.
    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id.0), "double free of {id:?}");
        self.free.push(id.0);
    }

    /// The per-scheme header fields of a packet (zero until a scheme writes them). A slot
    /// keeps its previous owner's fields until written: schemes that use a field set it when
    /// the packet is created.
    #[inline]
    pub fn ext(&mut self, id: PacketId) -> &mut HeaderExt {
        if self.ext.len() < self.slots.len() {
            self.ext.resize(self.slots.len(), HeaderExt::default());
        }
        &mut self.ext[id.0 as usize]
    }

    /// Packets alive now.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The most packets ever alive at once.
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }

    /// Calls `f` on every packet alive now (in slot order). Not for the hot path: it walks
    /// the whole slab (the end-of-run ledger uses it).
    pub fn for_each_live(&self, mut f: impl FnMut(&Packet)) {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        for (p, _) in self.slots.iter().zip(free).filter(|(_, free)| !free) {
            f(p);
        }
    }
}

impl std::ops::Index<PacketId> for PacketPool {
    type Output = Packet;
    #[inline]
    fn index(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }
}

impl std::ops::IndexMut<PacketId> for PacketPool {
    #[inline]
    fn index_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }
}
