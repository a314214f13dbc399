//! Memory for a batch's buffers, carved from a few large allocations.
//! NVIDIA's driver spends about a millisecond in each `vkFreeMemory`: on
//! the H100 freeing a batch of 200 generated cases' buffers one allocation
//! each took 2 of its 4.5 s (`--bench-batch`). Inside [`Gpu::in_arena`]
//! each buffer gets a piece of a block instead; the blocks stay, and every
//! piece is free again when the batch ends.

use super::Gpu;
use ash::vk;
use std::cell::{Cell, RefCell};

/// Smallest block: enough for a batch of a few hundred generated cases.
const BLOCK: u64 = 64 << 20;

#[derive(Default)]
pub struct Arena {
    on: Cell<bool>,
    blocks: RefCell<Vec<Block>>,
}

struct Block {
    memory: vk::DeviceMemory,
    ty: u32,
    size: u64,
    used: u64,
    mapped: *mut u8,
}

// SAFETY: the mapping belongs to the block alone, is written only through
// the buffers carved from it, and the device is used from one thread at a
// time (the backend holds it behind a mutex), as for `Buffer`.
unsafe impl Send for Block {}

/// A piece of a block: its memory, offset and mapping.
pub struct Piece {
    pub memory: vk::DeviceMemory,
    pub offset: u64,
    pub mapped: *mut u8,
}

impl Gpu {
    /// Runs `f` with buffers carved from blocks; every buffer made inside
    /// must be freed inside.
    pub fn in_arena<T>(&self, f: impl FnOnce() -> T) -> T {
        /// Ends the arena however `f` ends: after a panic (the runner runs
        /// the batch's cases again one by one), a buffer must not come
        /// from a block the next batch reuses.
        struct Off<'a>(&'a Arena);
        impl Drop for Off<'_> {
            fn drop(&mut self) {
                self.0.on.set(false);
                for b in self.0.blocks.borrow_mut().iter_mut() {
                    b.used = 0;
                }
            }
        }
        self.arena.on.set(true);
        let _off = Off(&self.arena);
        f()
    }

    /// A piece for `req` in memory type `ty`, or `None` outside an arena.
    pub(super) fn piece(
        &self,
        req: &vk::MemoryRequirements,
        ty: u32,
    ) -> Result<Option<Piece>, String> {
        if !self.arena.on.get() {
            return Ok(None);
        }
        let mut blocks = self.arena.blocks.borrow_mut();
        let align = req.alignment.max(1);
        let fits = |b: &Block| b.ty == ty && b.used.div_ceil(align) * align + req.size <= b.size;
        let at = match blocks.iter().position(fits) {
            Some(at) => at,
            None => {
                blocks.push(self.block(ty, req.size.max(BLOCK))?);
                blocks.len() - 1
            }
        };
        let b = &mut blocks[at];
        let offset = b.used.div_ceil(align) * align;
        b.used = offset + req.size;
        Ok(Some(Piece {
            memory: b.memory,
            offset,
            mapped: unsafe { b.mapped.add(offset as usize) },
        }))
    }

    fn block(&self, ty: u32, size: u64) -> Result<Block, String> {
        let (memory, mapped) = self.mapped_memory(size, ty)?;
        Ok(Block {
            memory,
            ty,
            size,
            used: 0,
            mapped,
        })
    }

    /// Frees the blocks (the device is idle).
    pub(super) fn free_arena(&self) {
        for b in self.arena.blocks.take() {
            unsafe {
                self.device.unmap_memory(b.memory);
                self.device.free_memory(b.memory, None);
            }
        }
    }
}
