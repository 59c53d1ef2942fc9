//! GX command streams and Dolphin FIFO logs (`gx.md` §17): [`Stream`] writes the big-endian
//! GP commands and shadows every register it loads, [`Dff`] lays out the container (header,
//! register snapshots, frames, memory updates). Register words come from [`crate::gx::regs`];
//! [`scene`] turns a model's frame into a stream and [`dolphin`] plays it back.

pub mod check;
pub mod dolphin;
pub mod scene;

use crate::gx::regs;

/// GP command opcodes (`gx.md` §17.1).
const OP_LOAD_CP: u8 = 0x08;
const OP_LOAD_XF: u8 = 0x10;
const OP_LOAD_BP: u8 = 0x61;
/// GX_TRIANGLES; the low three bits select the vertex format.
pub const PRIM_TRIANGLES: u8 = 0x90;
/// GX_LINES (`formats.md` §2.5): two vertices a segment.
pub const PRIM_LINES: u8 = 0xA8;

/// Retail RAM sizes (`gx.md` §17.4).
pub const MEM1_SIZE: u32 = 0x0180_0000;
pub const MEM2_SIZE: u32 = 0x0400_0000;

/// Every GX register a stream has loaded: what the DFF snapshots hold.
#[derive(Debug, Clone)]
pub struct Registers {
    pub bp: Vec<u32>,
    pub cp: Vec<u32>,
    pub xf_mem: Vec<u32>,
    /// XF 0x1000–0x1057.
    pub xf_regs: Vec<u32>,
}

impl Default for Registers {
    fn default() -> Self {
        let mut bp = vec![0; 256];
        bp[regs::BP_MASK as usize] = 0xFF_FFFF;
        Self {
            bp,
            cp: vec![0; 256],
            xf_mem: vec![0; 4096],
            xf_regs: vec![0; 88],
        }
    }
}

/// One frame's command bytes and the memory written while it plays.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    pub bytes: Vec<u8>,
    pub updates: Vec<MemoryUpdate>,
    pub regs: Registers,
}

/// RAM written when the FIFO reaches `fifo_position` (`gx.md` §17.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryUpdate {
    pub fifo_position: u32,
    pub address: u32,
    pub data: Vec<u8>,
    /// 1 texture map, 2 XF data, 4 vertex stream, 8 TMEM, 16 display list.
    pub kind: u8,
}

pub const UPDATE_TEXTURE: u8 = 1;

impl Stream {
    /// A new stream continuing from `regs` (the previous frame's registers).
    pub fn continuing(regs: Registers) -> Self {
        Self {
            regs,
            ..Default::default()
        }
    }

    pub fn bp(&mut self, reg: u8, value: u32) {
        self.bytes.push(OP_LOAD_BP);
        self.bytes
            .extend_from_slice(&regs::bp_word(reg, value).to_be_bytes());
        let mask = self.regs.bp[regs::BP_MASK as usize];
        let r = &mut self.regs.bp[reg as usize];
        if reg != regs::BP_MASK {
            *r = (*r & !mask) | (value & mask & 0xFF_FFFF);
            self.regs.bp[regs::BP_MASK as usize] = 0xFF_FFFF;
        } else {
            *r = value & 0xFF_FFFF;
        }
    }

    pub fn cp(&mut self, reg: u8, value: u32) {
        self.bytes.push(OP_LOAD_CP);
        self.bytes.push(reg);
        self.bytes.extend_from_slice(&value.to_be_bytes());
        self.regs.cp[reg as usize] = value;
    }

    /// XF loads of `values` from `address`, 16 words at most per command.
    pub fn xf(&mut self, address: u16, values: &[u32]) {
        for (i, chunk) in values.chunks(16).enumerate() {
            let a = address as u32 + 16 * i as u32;
            self.bytes.push(OP_LOAD_XF);
            self.bytes
                .extend_from_slice(&(((chunk.len() as u32 - 1) << 16) | a).to_be_bytes());
            for (j, v) in chunk.iter().enumerate() {
                self.bytes.extend_from_slice(&v.to_be_bytes());
                let at = a as usize + j;
                if at < 0x1000 {
                    self.regs.xf_mem[at] = *v;
                } else if let Some(r) = self.regs.xf_regs.get_mut(at - 0x1000) {
                    *r = *v;
                }
            }
        }
    }

    pub fn xf_f32(&mut self, address: u16, values: &[f32]) {
        let words: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
        self.xf(address, &words);
    }

    /// A draw command header; the caller appends `count` vertices with [`Stream::f32`] etc.
    pub fn draw(&mut self, primitive: u8, format: u8, count: u16) {
        self.bytes.push(primitive | (format & 7));
        self.bytes.extend_from_slice(&count.to_be_bytes());
    }

    pub fn f32(&mut self, v: f32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u8s(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
    }

    /// Writes `data` to RAM at `address` before the next command.
    pub fn memory(&mut self, address: u32, data: Vec<u8>, kind: u8) {
        self.updates.push(MemoryUpdate {
            fifo_position: self.bytes.len() as u32,
            address,
            data,
            kind,
        });
    }
}

/// A DFF: the registers the player starts from and the frames.
#[derive(Debug, Clone)]
pub struct Dff {
    pub snapshot: Registers,
    pub frames: Vec<Stream>,
    /// The FIFO ring the player uses (32-byte-aligned MEM1 range).
    pub fifo_start: u32,
    pub fifo_end: u32,
}

const HEADER_SIZE: usize = 128;
const FRAME_SIZE: usize = 64;
const UPDATE_SIZE: usize = 24;
const TMEM_SIZE: usize = 1 << 20;

impl Dff {
    /// The file bytes: version-5 header with the retail RAM sizes (`gx.md` §17.2, §17.4).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; HEADER_SIZE];
        let put_words = |out: &mut Vec<u8>, words: &[u32]| {
            let at = out.len() as u64;
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
            at
        };
        let s = &self.snapshot;
        let bp = put_words(&mut out, &s.bp);
        let cp = put_words(&mut out, &s.cp);
        let xf_mem = put_words(&mut out, &s.xf_mem);
        let xf_regs = put_words(&mut out, &s.xf_regs);
        let tmem = out.len() as u64;
        out.resize(out.len() + TMEM_SIZE, 0);
        // Frame FIFO data and update payloads, then the tables that point at them.
        let mut frame_entries = Vec::new();
        for f in &self.frames {
            let fifo = out.len() as u64;
            out.extend_from_slice(&f.bytes);
            let mut updates = Vec::new();
            for u in &f.updates {
                let at = out.len() as u64;
                out.extend_from_slice(&u.data);
                updates.push((u, at));
            }
            let table = out.len() as u64;
            for (u, at) in &updates {
                out.extend_from_slice(&u.fifo_position.to_le_bytes());
                out.extend_from_slice(&u.address.to_le_bytes());
                out.extend_from_slice(&at.to_le_bytes());
                out.extend_from_slice(&(u.data.len() as u32).to_le_bytes());
                out.push(u.kind);
                out.extend_from_slice(&[0; 3]);
            }
            debug_assert_eq!(
                out.len() as u64 - table,
                (updates.len() * UPDATE_SIZE) as u64
            );
            frame_entries.push((fifo, f.bytes.len() as u32, table, updates.len() as u32));
        }
        let frames_at = out.len() as u64;
        for (fifo, size, table, count) in frame_entries {
            let start = out.len();
            out.extend_from_slice(&fifo.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&self.fifo_start.to_le_bytes());
            out.extend_from_slice(&self.fifo_end.to_le_bytes());
            out.extend_from_slice(&table.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
            out.resize(start + FRAME_SIZE, 0);
        }
        let mut h = Vec::with_capacity(HEADER_SIZE);
        h.extend_from_slice(&0x0D01_F1F0u32.to_le_bytes());
        h.extend_from_slice(&5u32.to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes());
        for (at, count) in [
            (bp, s.bp.len()),
            (cp, s.cp.len()),
            (xf_mem, s.xf_mem.len()),
            (xf_regs, s.xf_regs.len()),
            (frames_at, self.frames.len()),
        ] {
            h.extend_from_slice(&at.to_le_bytes());
            h.extend_from_slice(&(count as u32).to_le_bytes());
        }
        h.extend_from_slice(&0u32.to_le_bytes()); // flags: GameCube
        h.extend_from_slice(&tmem.to_le_bytes());
        h.extend_from_slice(&(TMEM_SIZE as u32).to_le_bytes());
        h.extend_from_slice(&MEM1_SIZE.to_le_bytes());
        h.extend_from_slice(&MEM2_SIZE.to_le_bytes());
        debug_assert_eq!(h.len(), 0x60);
        out[..h.len()].copy_from_slice(&h);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default())
    }
    fn u64_at(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
    }

    #[test]
    fn stream_commands_are_big_endian_and_shadowed() {
        let mut s = Stream::default();
        s.bp(0x41, 0x1234);
        s.cp(0x50, 0x0000_0200);
        s.xf(0x1009, &[2]);
        s.draw(PRIM_TRIANGLES, 0, 3);
        assert_eq!(
            s.bytes,
            [
                0x61, 0x41, 0x00, 0x12, 0x34, 0x08, 0x50, 0, 0, 2, 0, 0x10, 0, 0, 0x10, 0x09, 0, 0,
                0, 2, 0x90, 0, 3
            ]
        );
        assert_eq!(s.regs.bp[0x41], 0x1234);
        assert_eq!(s.regs.cp[0x50], 0x200);
        assert_eq!(s.regs.xf_regs[9], 2);
        // The BP mask limits the next write only.
        s.bp(regs::BP_MASK, 0x00_00FF);
        s.bp(0x41, 0xFF_FFFF);
        assert_eq!(s.regs.bp[0x41], 0x12FF);
        s.bp(0x41, 0);
        assert_eq!(s.regs.bp[0x41], 0);
        // 20 XF words: two loads, 16 then 4.
        let mut s = Stream::default();
        s.xf(0, &[1; 20]);
        assert_eq!(s.bytes.len(), 2 * 5 + 20 * 4);
        assert_eq!(&s.bytes[1..5], &[0, 15, 0, 0]);
        assert_eq!(s.bytes[69], 0x10);
        assert_eq!(&s.bytes[70..74], &[0, 3, 0, 16]);
    }

    #[test]
    fn container_layout() {
        let mut f = Stream::default();
        f.memory(0x10_0000, vec![1, 2, 3, 4], UPDATE_TEXTURE);
        f.bp(regs::BP_COPY_TRIGGER, 0);
        let dff = Dff {
            snapshot: f.regs.clone(),
            frames: vec![f],
            fifo_start: 0x1000,
            fifo_end: 0x9000,
        };
        let b = dff.to_bytes();
        assert_eq!(u32_at(&b, 0), 0x0D01_F1F0);
        assert_eq!(u32_at(&b, 4), 5);
        assert_eq!((u64_at(&b, 0x0C), u32_at(&b, 0x14)), (128, 256));
        assert_eq!((u64_at(&b, 0x18), u32_at(&b, 0x20)), (128 + 1024, 256));
        assert_eq!(u32_at(&b, 0x2C), 4096);
        assert_eq!(u32_at(&b, 0x38), 88);
        assert_eq!(u32_at(&b, 0x44), 1);
        assert_eq!(u32_at(&b, 0x54), 1 << 20);
        assert_eq!((u32_at(&b, 0x58), u32_at(&b, 0x5C)), (MEM1_SIZE, MEM2_SIZE));
        let bp_at = u64_at(&b, 0x0C) as usize;
        assert_eq!(u32_at(&b, bp_at + 4 * 0xFE), 0xFF_FFFF);
        let frame = u64_at(&b, 0x3C) as usize;
        let fifo = u64_at(&b, frame) as usize;
        assert_eq!(u32_at(&b, frame + 8), 5);
        assert_eq!(b[fifo], 0x61);
        assert_eq!(
            (u32_at(&b, frame + 12), u32_at(&b, frame + 16)),
            (0x1000, 0x9000)
        );
        let table = u64_at(&b, frame + 20) as usize;
        assert_eq!(u32_at(&b, frame + 28), 1);
        assert_eq!((u32_at(&b, table), u32_at(&b, table + 4)), (0, 0x10_0000));
        let data = u64_at(&b, table + 8) as usize;
        assert_eq!(&b[data..data + 4], &[1, 2, 3, 4]);
        assert_eq!((u32_at(&b, table + 16), b[table + 20]), (4, UPDATE_TEXTURE));
        assert_eq!(b.len(), frame + 64);
    }
}
