package org.peerdex.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataRowsTest {
    private final WireCodec codec = new WireCodec();
    private final CBORMapper cbor = new CBORMapper();

    @Test
    void rowsCarryTheSameRecordsWithoutTheirFieldNames() throws Exception {
        V1.UrlRecord record = WireSamples.record();
        V1.MetadataReply asRecords = new V1.MetadataReply(9, List.of(record, record), "");
        V1.MetadataReply asRows = new V1.MetadataReply(9, List.of(), "", List.of(V1.UrlRow.of(record), V1.UrlRow.of(record)));
        byte[] rowBytes = codec.write(asRows);
        byte[] recordBytes = codec.write(asRecords);
        assertTrue(rowBytes.length < recordBytes.length - 2 * 120, rowBytes.length + " against " + recordBytes.length);

        V1.MetadataReply back = codec.read(rowBytes, V1.MetadataReply.class);
        assertEquals(2, back.rows().size());
        for (V1.UrlRow row : back.rows()) assertEquals(record, row.record());
        // a row is an array of the record's fields in its order
        JsonNode tree = cbor.readTree(rowBytes);
        assertTrue(tree.get("rows").get(0).isArray());
        assertEquals(record.urlHash(), tree.get("rows").get(0).get(0).asText());
        assertEquals(record.headings().size(), tree.get("rows").get(0).get(17).size());

        // without rows the key is absent, and so is the request's flag
        assertFalse(cbor.readTree(recordBytes).has("rows"));
        assertNull(codec.read(recordBytes, V1.MetadataReply.class).rows());
        List<String> urls = List.of(record.urlHash());
        assertFalse(cbor.readTree(codec.write(new V1.MetadataRequest(3, urls))).has("rows"));
        assertTrue(codec.read(codec.write(new V1.MetadataRequest(3, urls, true)), V1.MetadataRequest.class).rows());
    }

    @Test
    void aRowWithAFieldMoreIsReadAndABadRowFailsOnlyItself() throws Exception {
        V1.UrlRecord record = WireSamples.record();
        JsonNode tree = cbor.readTree(codec.write(new V1.MetadataReply(9, List.of(), "",
                List.of(V1.UrlRow.of(record), V1.UrlRow.of(record)))));
        // a later version's field at the end of the first row; the second row's URL hash broken
        ((ArrayNode) tree.get("rows").get(0)).add("a field of a later version");
        ((ArrayNode) tree.get("rows").get(1)).set(0, cbor.getNodeFactory().textNode("not-a-hash"));
        V1.MetadataReply back = codec.read(cbor.writeValueAsBytes(tree), V1.MetadataReply.class);
        assertEquals(record, back.rows().get(0).record());
        assertThrows(IllegalArgumentException.class, () -> back.rows().get(1).record());

        // a null row, and a row with a null among its headings: the reply reads, and each fails alone
        ((ArrayNode) tree.get("rows")).addNull();
        ((ArrayNode) tree.get("rows").get(0).get(17)).addNull();
        V1.MetadataReply nulls = codec.read(cbor.writeValueAsBytes(tree), V1.MetadataReply.class);
        assertEquals(3, nulls.rows().size());
        assertNull(nulls.rows().get(2));
        assertThrows(IllegalArgumentException.class, () -> nulls.rows().get(0).record());
    }
}
