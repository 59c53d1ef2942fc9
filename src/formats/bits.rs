//! The bitstream of compressed animations (MP1/MP2 format 2, MP3 version 1): big-endian
//! u32 words whose fields run from bit 0 upward.

/// Bit reader for format 2 (formats.md §7.4): big-endian u32 words consumed from bit 0
/// upward; a field's first bit is its least significant; fields may span words.
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Bit position from the start.
    pos: u64,
}

impl<'a> BitReader<'a> {
    /// `data` must hold whole words; bits past its end read as 0 (the caller checks the
    /// length beforehand).
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    fn word(&self, index: u64) -> u32 {
        let at = index as usize * 4;
        match self.data.get(at..at + 4) {
            Some(b) => u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }

    /// Reads `bits` (0..=32) bits unsigned.
    pub fn read_bits(&mut self, bits: u8) -> u32 {
        let bits = u32::from(bits.min(32));
        if bits == 0 {
            return 0;
        }
        let word = self.pos / 32;
        let shift = (self.pos % 32) as u32;
        let lo = u64::from(self.word(word)) >> shift;
        let have = 32 - shift;
        let value = if bits > have {
            lo | (u64::from(self.word(word + 1)) << have)
        } else {
            lo
        };
        self.pos += u64::from(bits);
        (value & ((1u64 << bits) - 1)) as u32
    }

    /// Reads a `bits`-wide two's-complement field, sign-extended (width 0 yields 0).
    pub fn read_signed(&mut self, bits: u8) -> i32 {
        let bits = bits.min(32);
        let v = self.read_bits(bits);
        match bits {
            0 => 0,
            32 => v as i32,
            b => {
                let shift = 32 - u32::from(b);
                ((v << shift) as i32) >> shift
            }
        }
    }

    pub fn bit_pos(&self) -> u64 {
        self.pos
    }
}

/// The mirror of [`BitReader`].
#[derive(Default)]
pub struct BitWriter {
    words: Vec<u32>,
    pos: u64,
}

impl BitWriter {
    /// Appends the low `bits` (0..=32) bits of `value`, least significant first.
    pub fn write_bits(&mut self, value: u32, bits: u8) {
        let bits = u32::from(bits.min(32));
        if bits == 0 {
            return;
        }
        let v = if bits == 32 {
            value
        } else {
            value & ((1 << bits) - 1)
        };
        let shift = (self.pos % 32) as u32;
        if shift == 0 {
            self.words.push(0);
        }
        let last = self.words.len() - 1;
        self.words[last] |= v << shift;
        let have = 32 - shift;
        if bits > have {
            self.words.push(v >> have);
        }
        self.pos += u64::from(bits);
    }

    pub fn bit_len(&self) -> u64 {
        self.pos
    }

    pub fn finish(self) -> Vec<u32> {
        self.words
    }
}
