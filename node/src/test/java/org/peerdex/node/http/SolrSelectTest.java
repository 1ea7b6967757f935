package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.impl.HttpJdkSolrClient;
import org.apache.solr.client.solrj.impl.JsonMapResponseParser;
import org.apache.solr.client.solrj.impl.XMLResponseParser;
import org.apache.solr.client.solrj.request.QueryRequest;
import org.apache.solr.client.solrj.response.FacetField;
import org.apache.solr.client.solrj.response.QueryResponse;
import org.apache.solr.common.SolrDocument;
import org.apache.solr.common.SolrDocumentList;
import org.apache.solr.common.util.NamedList;
import org.junit.jupiter.api.Test;

/** GET /solr/select queried by the real SolrJ client (and raw HTTP for the JSON shape), on the Tarn corpus. */
class SolrSelectTest extends TarnPeerTest {
    static HttpJdkSolrClient xmlClient(String collection) {
        HttpJdkSolrClient.Builder b = new HttpJdkSolrClient.Builder(peer.base() + "/solr")
                .withResponseParser(new XMLResponseParser()).useHttp1_1(true);
        if (collection != null) b.withDefaultCollection(collection);
        return b.build();
    }

    static List<String> urls(SolrDocumentList docs) {
        List<String> out = new ArrayList<>();
        for (SolrDocument d : docs) out.add((String) d.getFieldValue("sku"));
        return out;
    }

    @Test
    void solrjFindsRankedDocumentsWithTheirFields() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            QueryResponse r = solr.query(new SolrQuery("backup").setRows(5).setFields("id", "sku", "title", "score"));
            assertEquals(0, r.getStatus());
            SolrDocumentList docs = r.getResults();
            assertTrue(docs.getNumFound() >= 2, "numFound " + docs.getNumFound());
            assertTrue(urls(docs).get(0).endsWith("/backup.html"), urls(docs).toString());
            SolrDocument first = docs.get(0);
            assertEquals(12, ((String) first.getFieldValue("id")).length());
            assertTrue(((Float) first.getFieldValue("score")) > 0);
            assertNull(first.getFieldValue("host_s"), "fl limits the fields");
            assertEquals("backup", r.getHeader().get("params") instanceof NamedList<?> p ? p.get("q") : null);
        }
    }

    @Test
    void startAndRowsPageThroughTheSameRanking() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient(null)) {
            // "backup": four pages say it in their own text (the navigation footers that named other pages no longer count)
            List<String> all = urls(solr.query(new SolrQuery("backup").setRows(6)).getResults());
            assertTrue(all.size() >= 4, all.toString());
            List<String> page2 = urls(solr.query(new SolrQuery("backup").setStart(2).setRows(2)).getResults());
            assertEquals(all.subList(2, 4), page2);
        }
    }

    @Test
    void filterQueriesNarrowByHostFiletypeAndLanguage() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            long all = solr.query(new SolrQuery("backup")).getResults().getNumFound();
            assertTrue(all > 0);
            assertEquals(all, solr.query(new SolrQuery("backup").addFilterQuery("host_s:127.0.0.1")
                    .addFilterQuery("url_file_ext_s:html").addFilterQuery("language_s:en")).getResults().getNumFound());
            assertEquals(0, solr.query(new SolrQuery("backup").addFilterQuery("host_s:example.org"))
                    .getResults().getNumFound());
            assertEquals(0, solr.query(new SolrQuery("backup").addFilterQuery("language_s:de"))
                    .getResults().getNumFound());
        }
    }

    @Test
    void facetFieldsCountHostsAndFiletypes() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            QueryResponse r = solr.query(new SolrQuery("backup").setFacet(true)
                    .addFacetField("host_s", "url_file_ext_s").setRows(3));
            FacetField host = r.getFacetField("host_s");
            assertNotNull(host, "facet_fields has host_s");
            assertEquals("127.0.0.1", host.getValues().get(0).getName());
            assertTrue(host.getValues().get(0).getCount() >= 4, host.toString());
            assertEquals("html", r.getFacetField("url_file_ext_s").getValues().get(0).getName());
        }
    }

    @Test
    void sortByAFieldOrdersTheResults() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            List<String> byUrl = urls(solr.query(new SolrQuery("backup").setRows(10)
                    .setSort("sku", SolrQuery.ORDER.asc)).getResults());
            List<String> sorted = new ArrayList<>(byUrl);
            sorted.sort(null);
            assertTrue(byUrl.size() >= 4);
            assertEquals(sorted, byUrl);
            List<String> desc = urls(solr.query(new SolrQuery("backup").setRows(10)
                    .setSort("sku", SolrQuery.ORDER.desc)).getResults());
            assertEquals(byUrl.get(0), desc.get(desc.size() - 1));
        }
    }

    @Test
    void matchAllCountsEveryDocument() throws Exception {
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            SolrDocumentList docs = solr.query(new SolrQuery("*:*").setRows(100)).getResults();
            assertEquals((long) peer.corpus.urls().size(), docs.getNumFound());
            assertEquals((long) peer.corpus.urls().size(), docs.size());
        }
    }

    @Test
    void solrjReadsTheJsonResponse() throws Exception {
        try (HttpJdkSolrClient solr = new HttpJdkSolrClient.Builder(peer.base() + "/solr")
                .withResponseParser(new JsonMapResponseParser()).useHttp1_1(true).build()) {
            // QueryResponse wants javabin/XML types; the JSON parser's NamedList of maps is read as it comes
            NamedList<Object> r = solr.request(new QueryRequest(new SolrQuery("backup").setFacet(true)
                    .addFacetField("host_s")));
            @SuppressWarnings("unchecked")
            Map<String, Object> response = (Map<String, Object>) r.get("response");
            assertTrue(((Number) response.get("numFound")).longValue() >= 2, response.toString());
            assertFalse(((List<?>) response.get("docs")).isEmpty());
        }
    }

    @Test
    void theJsonShapeIsSolrs() throws Exception {
        HttpResponse<String> resp = peer.get("/solr/select?q=backup&rows=2&wt=json&facet=true&facet.field=host_s"
                + "&fq=language_s:en");
        assertEquals(200, resp.statusCode(), resp.body());
        JsonNode r = Json.MAPPER.readTree(resp.body());
        assertEquals(0, r.get("responseHeader").get("status").asInt());
        assertTrue(r.get("responseHeader").has("QTime"));
        assertEquals("backup", r.get("responseHeader").get("params").get("q").asText());
        assertTrue(r.get("response").get("numFound").asLong() >= 2);
        assertEquals(0, r.get("response").get("start").asInt());
        assertEquals(2, r.get("response").get("docs").size());
        JsonNode hosts = r.get("facet_counts").get("facet_fields").get("host_s");
        assertEquals("127.0.0.1", hosts.get(0).asText());
        assertTrue(hosts.get(1).asInt() >= 2, "flat [value, count, ...]: " + hosts);
    }

    @Test
    void badParametersAnswerSolrErrors() throws Exception {
        HttpResponse<String> resp = peer.get("/solr/select?q=backup&fq=title:x");
        assertEquals(400, resp.statusCode());
        JsonNode r = Json.MAPPER.readTree(resp.body());
        assertEquals(400, r.get("error").get("code").asInt());
        assertTrue(r.get("error").get("msg").asText().contains("fq"), resp.body());
        assertEquals(400, peer.get("/solr/select?q=backup&wt=javabin").statusCode());
        assertEquals(400, peer.get("/solr/select?q=backup&sort=bogus%20asc").statusCode());
        try (HttpJdkSolrClient solr = xmlClient("peerdex")) {
            assertThrows(Exception.class, () -> solr.query(new SolrQuery("backup").setRows(-1)));
        }
    }
}
