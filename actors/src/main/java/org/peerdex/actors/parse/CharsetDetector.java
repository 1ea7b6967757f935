package org.peerdex.actors.parse;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mozilla.universalchardet.UniversalDetector;

/**
 * Finds the charset of a fetched body, in the order browsers use (WHATWG HTML, "determining the character
 * encoding"): byte-order mark, the Content-Type header, a {@code <meta charset>} (or http-equiv, or an XML
 * declaration) in the first 4 KiB, then UTF-8 if the bytes are valid UTF-8, then the frequency analysis the standard
 * allows for unlabelled pages (juniversalchardet: Shift_JIS, GBK, windows-1251 and the other legacy encodings a
 * browser knows), else windows-1252 (what browsers assume for ISO-8859-1 labels too).
 */
public final class CharsetDetector {
    private static final int SNIFF_BYTES = 4096;
    private static final Pattern HEADER_CHARSET = Pattern.compile("(?i)charset\\s*=\\s*[\"']?([\\w.:-]+)");
    private static final Pattern META_CHARSET = Pattern.compile(
            "(?i)<meta[^>]+charset\\s*=\\s*[\"']?\\s*([\\w.:-]+)");
    private static final Pattern XML_ENCODING = Pattern.compile("(?i)<\\?xml[^>]+encoding\\s*=\\s*[\"']([\\w.:-]+)");

    /** How many bytes the statistical detector reads: enough text for a verdict, bounded cost on a huge page. */
    private static final int STATISTICS_BYTES = 64 * 1024;
    /**
     * What the statistical step may answer (juniversalchardet's names): legacy encodings of the WHATWG Encoding
     * standard. Left out: UTF-16/32 without a byte-order mark, HZ and ISO-2022-CN/KR (the standard decodes them as
     * "replacement"), EUC-TW and IBM855 (not in the standard) and MacCyrillic (rare on the web).
     */
    private static final Set<String> STATISTICAL = Set.of("SHIFT_JIS", "EUC-JP", "ISO-2022-JP", "GB18030", "BIG5",
            "EUC-KR", "WINDOWS-1251", "KOI8-R", "ISO-8859-5", "IBM866", "WINDOWS-1253", "ISO-8859-7", "WINDOWS-1255",
            "ISO-8859-8", "TIS620");
    /**
     * A verdict counts only when at least this share (percent) of the bytes outside tags, and at least
     * {@link #MIN_NON_ASCII} bytes, are non-ASCII: a page in a CJK or Cyrillic code page is mostly such bytes, while
     * an English page with a stray "§" or "–" has a handful, and juniversalchardet can take those for GB18030.
     */
    private static final int MIN_NON_ASCII_PERCENT = 5;
    private static final int MIN_NON_ASCII = 32;

    /** The charset and where it came from (bom, header, meta, utf8-valid, statistics, fallback). */
    public record Detected(Charset charset, String source, int bomLength) {}

    private CharsetDetector() {}

    public static Detected detect(byte[] body, String contentType) {
        if (startsWith(body, 0xEF, 0xBB, 0xBF)) return new Detected(StandardCharsets.UTF_8, "bom", 3);
        if (startsWith(body, 0xFE, 0xFF)) return new Detected(StandardCharsets.UTF_16BE, "bom", 2);
        if (startsWith(body, 0xFF, 0xFE)) return new Detected(StandardCharsets.UTF_16LE, "bom", 2);
        Optional<Charset> header = fromHeader(contentType);
        if (header.isPresent()) return new Detected(header.get(), "header", 0);
        String head = new String(body, 0, Math.min(body.length, SNIFF_BYTES), StandardCharsets.ISO_8859_1);
        for (Pattern p : new Pattern[] {META_CHARSET, XML_ENCODING}) {
            Matcher m = p.matcher(head);
            if (m.find()) {
                Optional<Charset> cs = lookup(m.group(1));
                // a page that says UTF-16 in ASCII-compatible bytes is lying (HTML spec: treat as UTF-8)
                if (cs.isPresent() && !cs.get().name().startsWith("UTF-16")) return new Detected(cs.get(), "meta", 0);
            }
        }
        if (isValidUtf8(body)) return new Detected(StandardCharsets.UTF_8, "utf8-valid", 0);
        Optional<Charset> guessed = statistical(body);
        if (guessed.isPresent()) return new Detected(guessed.get(), "statistics", 0);
        return new Detected(Charset.forName("windows-1252"), "fallback", 0);
    }

    /** Decodes with the detected charset; malformed bytes become U+FFFD. */
    public static String decode(byte[] body, Detected d) {
        return new String(body, d.bomLength(), body.length - d.bomLength(), d.charset());
    }

    public static Optional<Charset> fromHeader(String contentType) {
        if (contentType == null) return Optional.empty();
        Matcher m = HEADER_CHARSET.matcher(contentType);
        return m.find() ? lookup(m.group(1)) : Optional.empty();
    }

    static Optional<Charset> lookup(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        // browsers decode Latin-1 and ASCII labels as windows-1252 (WHATWG Encoding standard)
        if (n.equals("iso-8859-1") || n.equals("latin1") || n.equals("us-ascii") || n.equals("ascii")) {
            n = "windows-1252";
        }
        try {
            return Charset.isSupported(n) ? Optional.of(Charset.forName(n)) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * juniversalchardet's verdict on the first {@link #STATISTICS_BYTES}, if it names a legacy encoding of the WHATWG
     * list other than windows-1252 (the fallback anyway) and the text has enough non-ASCII bytes to judge by.
     */
    static Optional<Charset> statistical(byte[] body) {
        int len = Math.min(body.length, STATISTICS_BYTES);
        if (!mostlyNonAscii(body, len)) return Optional.empty();
        UniversalDetector detector = new UniversalDetector();
        detector.handleData(body, 0, len);
        detector.dataEnd();
        String name = detector.getDetectedCharset();
        if (name == null || !STATISTICAL.contains(name.toUpperCase(Locale.ROOT))) return Optional.empty();
        // TIS-620 is a subset of windows-874, the decoder the standard uses for it
        return lookup(name.equalsIgnoreCase("TIS620") ? "x-windows-874" : name);
    }

    /** Whether enough of the text outside tags is non-ASCII bytes ({@link #MIN_NON_ASCII_PERCENT}). */
    static boolean mostlyNonAscii(byte[] body, int len) {
        int text = 0;
        int nonAscii = 0;
        boolean inTag = false;
        for (int i = 0; i < len; i++) {
            byte b = body[i];
            if (b == '<') {
                inTag = true;
            } else if (b == '>') {
                inTag = false;
            } else if (!inTag) {
                text++;
                if (b < 0) nonAscii++;
            }
        }
        return nonAscii >= MIN_NON_ASCII && nonAscii * 100L >= (long) text * MIN_NON_ASCII_PERCENT;
    }

    static boolean isValidUtf8(byte[] body) {
        // a body cut by the size cap may end inside a sequence: ignore the last 3 bytes
        int len = Math.max(0, body.length - 3);
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body, 0, len));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static boolean startsWith(byte[] b, int... prefix) {
        if (b.length < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if ((b[i] & 0xff) != prefix[i]) return false;
        return true;
    }
}
