package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The bytes of fixed messages, checked against files in {@code src/test/resources/wire/v1/}: a change of what
 * peers exchange shows in review as a change of these files. A change that older peers of v1 cannot read needs a
 * new version path (docs/protocol.md, "Versioning"). To rewrite the files after a deliberate change, run this
 * test with the environment variable {@code PEERDEX_WIRE_REWRITE_GOLDEN=true} and check the diff.
 */
class GoldenBytesTest {
    private final WireCodec codec = new WireCodec();

    @Test
    void storeRequestBytesAreTheCheckedInOnes() throws IOException {
        check("store", codec.write(WireSamples.store()));
        // and the checked-in bytes still read as the same message
        V1.StoreRequest read = codec.read(golden("store"), V1.StoreRequest.class);
        assertEquals(7, read.batchId());
        assertEquals(2, PackedPostings.unpack(read.postings()).size());
        assertEquals(WireSamples.URL_A, read.metadata().get(0).url());
    }

    @Test
    void lookupRequestBytesAreTheCheckedInOnes() throws IOException {
        check("lookup", codec.write(WireSamples.lookup()));
        V1.LookupRequest read = codec.read(golden("lookup"), V1.LookupRequest.class);
        assertEquals(42, read.queryId());
        assertEquals(WireSamples.WORD, read.lookups().get(0).key().word());
        assertEquals(100, read.lookups().get(0).limit());
    }

    @Test
    void lookupReplyBytesAreTheCheckedInOnes() throws IOException {
        check("lookup-reply", codec.write(WireSamples.lookupReply()));
        V1.LookupReply read = codec.read(golden("lookup-reply"), V1.LookupReply.class);
        assertEquals(31, read.results().get(0).matched());
        assertEquals(WireSamples.HOLDER, PackedPostings.unpack(read.results().get(0).postings()).get(0).holder());
    }

    private void check(String name, byte[] bytes) throws IOException {
        String hex = lines(HexFormat.of().formatHex(bytes));
        if ("true".equals(System.getenv("PEERDEX_WIRE_REWRITE_GOLDEN"))) {
            String json = new CBORMapper().readTree(bytes).toString();
            Files.writeString(Path.of("src/test/resources/wire/v1/" + name + ".hex"),
                    "# " + name + ", peer protocol v1, " + bytes.length + " bytes of CBOR; as JSON (byte strings in base64):\n"
                            + "# " + json + "\n" + hex, StandardCharsets.UTF_8);
        }
        assertEquals(hexOf(name), hex, "the wire bytes of " + name + " changed (see this class's comment)");
    }

    private static byte[] golden(String name) throws IOException {
        return HexFormat.of().parseHex(hexOf(name).replace("\n", ""));
    }

    private static String hexOf(String name) throws IOException {
        try (InputStream in = GoldenBytesTest.class.getResourceAsStream("/wire/v1/" + name + ".hex")) {
            if (in == null) return "(no file wire/v1/" + name + ".hex)";
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.startsWith("#") && !l.isBlank()).collect(Collectors.joining("\n"));
        }
    }

    private static String lines(String hex) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < hex.length(); i += 64) {
            if (i > 0) out.append('\n');
            out.append(hex, i, Math.min(hex.length(), i + 64));
        }
        return out.toString();
    }
}
