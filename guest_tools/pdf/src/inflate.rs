//! DEFLATE (RFC 1951) and zlib (RFC 1950) decompression for PDF `FlateDecode` streams.

/// Bits read LSB-first from a byte slice.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u32,
    count: u32,
}

impl Bits<'_> {
    fn bits(&mut self, n: u32) -> Option<u32> {
        while self.count < n {
            let byte = *self.data.get(self.pos)?;
            self.pos += 1;
            self.buf |= u32::from(byte) << self.count;
            self.count += 8;
        }
        let v = self.buf & ((1u32 << n) - 1);
        self.buf >>= n;
        self.count -= n;
        Some(v)
    }

    fn align(&mut self) {
        self.buf = 0;
        self.count = 0;
    }
}

/// A canonical Huffman code: symbols counted per length and sorted by code.
struct Huffman {
    count: [u16; 16],
    symbol: Vec<u16>,
}

impl Huffman {
    fn new(lengths: &[u8]) -> Option<Huffman> {
        let mut count = [0u16; 16];
        for &l in lengths {
            count[usize::from(l)] += 1;
        }
        let mut offs = [0u16; 16];
        for len in 1..15 {
            offs[len + 1] = offs[len] + count[len];
        }
        let mut symbol = vec![0u16; lengths.len()];
        for (s, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbol[usize::from(offs[usize::from(l)])] = s as u16;
                offs[usize::from(l)] += 1;
            }
        }
        Some(Huffman { count, symbol })
    }

    fn decode(&self, bits: &mut Bits<'_>) -> Option<u16> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= bits.bits(1)? as i32;
            let count = i32::from(self.count[len]);
            if code - count < first {
                return self.symbol.get((index + code - first) as usize).copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

const LBASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEXT: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DBASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DEXT: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// Why decompression stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Corrupt data, and nothing decoded before it.
    Corrupt,
    /// The output would pass the caller's limit (a decompression bomb, or just too much).
    TooLarge,
}

/// The decompressed bytes, never more than `max`.
struct Out {
    buf: Vec<u8>,
    max: usize,
    /// Set when the data wanted more than `max` bytes.
    overflow: bool,
}

impl Out {
    /// Room for `n` more bytes, or `None` (and `overflow`) if that would pass `max`.
    fn room(&mut self, n: usize) -> Option<()> {
        if self.buf.len().saturating_add(n) > self.max {
            self.overflow = true;
            return None;
        }
        Some(())
    }
}

fn codes(bits: &mut Bits<'_>, out: &mut Out, lit: &Huffman, dist: &Huffman) -> Option<()> {
    loop {
        let sym = lit.decode(bits)?;
        match sym {
            0..=255 => {
                out.room(1)?;
                out.buf.push(sym as u8);
            }
            256 => return Some(()),
            _ => {
                let i = usize::from(sym - 257);
                let len = usize::from(*LBASE.get(i)?) + bits.bits(u32::from(LEXT[i]))? as usize;
                let d = usize::from(dist.decode(bits)?);
                let back = usize::from(*DBASE.get(d)?) + bits.bits(u32::from(DEXT[d]))? as usize;
                if back > out.buf.len() {
                    return None;
                }
                out.room(len)?;
                let start = out.buf.len() - back;
                for k in 0..len {
                    out.buf.push(out.buf[start + k]);
                }
            }
        }
    }
}

fn dynamic(bits: &mut Bits<'_>) -> Option<(Huffman, Huffman)> {
    const ORDER: [usize; 19] = [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ];
    let nlen = bits.bits(5)? as usize + 257;
    let ndist = bits.bits(5)? as usize + 1;
    let ncode = bits.bits(4)? as usize + 4;
    let mut lengths = [0u8; 19];
    for &o in ORDER.iter().take(ncode) {
        lengths[o] = bits.bits(3)? as u8;
    }
    let lencode = Huffman::new(&lengths)?;
    let mut all = vec![0u8; nlen + ndist];
    let mut i = 0;
    while i < nlen + ndist {
        let sym = lencode.decode(bits)?;
        let (value, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => (*all.get(i.checked_sub(1)?)?, 3 + bits.bits(2)? as usize),
            17 => (0, 3 + bits.bits(3)? as usize),
            _ => (0, 11 + bits.bits(7)? as usize),
        };
        if i + repeat > all.len() {
            return None;
        }
        all[i..i + repeat].fill(value);
        i += repeat;
    }
    Some((Huffman::new(&all[..nlen])?, Huffman::new(&all[nlen..])?))
}

/// Decompresses raw DEFLATE data into at most `max` bytes. On corrupt or truncated input,
/// returns what was decoded so far (as PDF readers do) if that is anything; data that would
/// decompress to more than `max` bytes is [`Stop::TooLarge`] however it ends.
pub fn inflate(data: &[u8], max: usize) -> Result<Vec<u8>, Stop> {
    let mut bits = Bits {
        data,
        pos: 0,
        buf: 0,
        count: 0,
    };
    let mut out = Out {
        buf: Vec::with_capacity(data.len().saturating_mul(4).min(max)),
        max,
        overflow: false,
    };
    let ok = (|| -> Option<()> {
        loop {
            let last = bits.bits(1)?;
            match bits.bits(2)? {
                0 => {
                    bits.align();
                    let b = bits.data.get(bits.pos..bits.pos + 4)?;
                    let len = usize::from(u16::from_le_bytes([b[0], b[1]]));
                    bits.pos += 4;
                    let stored = bits.data.get(bits.pos..bits.pos + len)?;
                    out.room(len)?;
                    out.buf.extend_from_slice(stored);
                    bits.pos += len;
                }
                1 => {
                    let mut l = [8u8; 288];
                    l[144..256].fill(9);
                    l[256..280].fill(7);
                    codes(
                        &mut bits,
                        &mut out,
                        &Huffman::new(&l)?,
                        &Huffman::new(&[5u8; 30])?,
                    )?;
                }
                2 => {
                    let (lit, dist) = dynamic(&mut bits)?;
                    codes(&mut bits, &mut out, &lit, &dist)?;
                }
                _ => return None,
            }
            if last == 1 {
                return Some(());
            }
        }
    })();
    match ok {
        _ if out.overflow => Err(Stop::TooLarge),
        Some(()) => Ok(out.buf),
        None if !out.buf.is_empty() => Ok(out.buf),
        None => Err(Stop::Corrupt),
    }
}

/// Decompresses zlib data (a 2-byte header, DEFLATE, an ignored checksum) into at most `max`
/// bytes; raw DEFLATE is accepted too.
pub fn zlib(data: &[u8], max: usize) -> Result<Vec<u8>, Stop> {
    match data {
        [cmf, flg, rest @ ..]
            if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0 =>
        {
            inflate(rest, max)
        }
        _ => inflate(data, max),
    }
}
