//! Host-visible buffers with device addresses: simple, and enough for
//! cases of a few kilobytes.

use super::Gpu;
use ash::vk;

pub struct Buffer {
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// Whether `memory` is the buffer's own (else a piece of an arena's
    /// block).
    owned: bool,
    pub size: u64,
    pub address: u64,
    mapped: *mut u8,
}

impl Gpu {
    /// A buffer of at least `size` bytes (never empty), zeroed.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> Result<Buffer, String> {
        let size = size.max(16);
        let d = &self.device;
        let usage = usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .map_err(|e| format!("vkCreateBuffer: {e}"))?;
            let req = d.get_buffer_memory_requirements(buffer);
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let ty = self
                .memory_type(req.memory_type_bits, host)
                .ok_or("no host-visible coherent memory type")?;
            let (memory, mapped, owned) = match self.piece(&req, ty) {
                Ok(Some(piece)) => {
                    if let Err(e) = d.bind_buffer_memory(buffer, piece.memory, piece.offset) {
                        d.destroy_buffer(buffer, None);
                        return Err(format!("vkBindBufferMemory: {e}"));
                    }
                    (piece.memory, piece.mapped, false)
                }
                Ok(None) => {
                    let (memory, mapped) = self.own_memory(buffer, &req, ty)?;
                    (memory, mapped, true)
                }
                Err(e) => {
                    d.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            std::ptr::write_bytes(mapped, 0, size as usize);
            let address =
                d.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(buffer));
            Ok(Buffer {
                buffer,
                memory,
                owned,
                size,
                address,
                mapped,
            })
        }
    }

    /// An allocation of the buffer's own, bound and mapped.
    unsafe fn own_memory(
        &self,
        buffer: vk::Buffer,
        req: &vk::MemoryRequirements,
        ty: u32,
    ) -> Result<(vk::DeviceMemory, *mut u8), String> {
        let d = &self.device;
        let (memory, mapped) = match self.mapped_memory(req.size, ty) {
            Ok(m) => m,
            Err(e) => {
                d.destroy_buffer(buffer, None);
                return Err(e);
            }
        };
        if let Err(e) = d.bind_buffer_memory(buffer, memory, 0) {
            d.destroy_buffer(buffer, None);
            d.unmap_memory(memory);
            d.free_memory(memory, None);
            return Err(format!("vkBindBufferMemory: {e}"));
        }
        Ok((memory, mapped))
    }

    /// `size` bytes of memory type `ty` with device addresses, mapped: a
    /// buffer's own memory, or an arena's block.
    pub(super) fn mapped_memory(
        &self,
        size: u64,
        ty: u32,
    ) -> Result<(vk::DeviceMemory, *mut u8), String> {
        let d = &self.device;
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        unsafe {
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(size)
                        .memory_type_index(ty)
                        .push_next(&mut flags),
                    None,
                )
                .map_err(|e| format!("vkAllocateMemory ({size} bytes): {e}"))?;
            match d.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty()) {
                Ok(p) => Ok((memory, p as *mut u8)),
                Err(e) => {
                    d.free_memory(memory, None);
                    Err(format!("vkMapMemory: {e}"))
                }
            }
        }
    }

    /// A buffer holding `bytes`.
    pub fn buffer_with(&self, bytes: &[u8], usage: vk::BufferUsageFlags) -> Result<Buffer, String> {
        let b = self.buffer(bytes.len() as u64, usage)?;
        b.write(0, bytes);
        Ok(b)
    }

    pub fn free(&self, b: Buffer) {
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            if b.owned {
                self.device.unmap_memory(b.memory);
                self.device.free_memory(b.memory, None);
            }
        }
    }
}

// SAFETY: the mapping belongs to the buffer alone and is only touched
// through `&self`/`&mut self` of the buffer; the device is used from one
// thread at a time (the backend holds it behind a mutex).
unsafe impl Send for Buffer {}

impl Buffer {
    pub fn write(&self, offset: usize, bytes: &[u8]) {
        assert!(offset + bytes.len() <= self.size as usize);
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.mapped.add(offset), bytes.len())
        }
    }

    pub fn read_words(&self, n: usize) -> Vec<u32> {
        assert!(n * 4 <= self.size as usize);
        let mut out = vec![0u32; n];
        unsafe { std::ptr::copy_nonoverlapping(self.mapped, out.as_mut_ptr() as *mut u8, n * 4) }
        out
    }
}

pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
