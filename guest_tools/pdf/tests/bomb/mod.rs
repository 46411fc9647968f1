//! Builds hostile PDFs for limit tests: Flate bombs (written by hand with fixed-Huffman
//! DEFLATE blocks, so no compression crate is needed) and files assembled from raw objects.
//! Also used by the host's documents-service tests (`tests/it/services_documents.rs`).

#![allow(dead_code)]

/// Bits packed LSB-first, as DEFLATE stores them.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// `bits` bits of `value`, least significant first (header fields, extra bits).
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code of `len` bits (stored most significant bit first).
    fn code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }

    /// A literal byte in the fixed Huffman code.
    fn literal(&mut self, b: u8) {
        match b {
            0..=143 => self.code(0x30 + u32::from(b), 8),
            _ => self.code(0x190 + u32::from(b - 144), 9),
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A zlib stream of `prefix` followed by `zeros` zero bytes: one fixed-Huffman block whose
/// zeros are matches of 258 bytes at distance 1 (13 bits each, a ratio of about 160:1).
pub fn zlib_with_zeros(prefix: &[u8], zeros: usize) -> Vec<u8> {
    let mut w = Bits {
        out: vec![0x78, 0x9c],
        acc: 0,
        n: 0,
    };
    w.put(1, 1); // the last block
    w.put(1, 2); // fixed Huffman codes
    for &b in prefix {
        w.literal(b);
    }
    let mut left = zeros;
    if left > 0 {
        w.literal(0);
        left -= 1;
    }
    while left >= 258 {
        w.code(0xc5, 8); // length code 285: 258 bytes
        w.code(0, 5); // distance code 0: 1 byte back
        left -= 258;
    }
    for _ in 0..left {
        w.literal(0);
    }
    w.code(0, 7); // end of block
    let mut out = w.finish();
    // Adler-32 of the data (zeros leave `a` alone and add it to `b` once each).
    let (mut a, mut b) = (1u64, 0u64);
    for &byte in prefix {
        a = (a + u64::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    let b = ((b + a * (zeros as u64 % 65521)) % 65521) as u32;
    let a = a as u32;
    out.extend_from_slice(&(b << 16 | a).to_be_bytes());
    out
}

/// A PDF file of `objects` (object `i + 1` is `objects[i]`, each a dictionary or a stream as
/// built by [`stream`]); object 1 must be the catalog.
pub fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    for (i, o) in objects.iter().enumerate() {
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    out.extend_from_slice(b"trailer\n<< /Root 1 0 R >>\n%%EOF\n");
    out
}

/// A stream object with `dict` entries (besides `/Length`) and `data`.
pub fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< /Length {} {dict} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// The text a page shows with font `/F1` (Helvetica).
pub const HELLO: &[u8] = b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET\n";

/// A one-page PDF whose content stream inflates to [`HELLO`] and then `zeros` zero bytes
/// (whitespace to a PDF reader).
pub fn flate_bomb(zeros: usize) -> Vec<u8> {
    let content = zlib_with_zeros(HELLO, zeros);
    pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        stream("/Filter /FlateDecode", &content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ])
}

/// A PDF of `pages` pages that all draw the same content stream, which inflates to [`HELLO`]
/// and `zeros` zero bytes.
pub fn shared_content(pages: usize, zeros: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", i + 5)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .into_bytes(),
        stream("/Filter /FlateDecode", &zlib_with_zeros(HELLO, zeros)),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    for _ in 0..pages {
        objects.push(
            b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
                .to_vec(),
        );
    }
    pdf(&objects)
}
