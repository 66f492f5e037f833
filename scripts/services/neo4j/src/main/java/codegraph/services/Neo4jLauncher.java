package codegraph.services;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import inet.ipaddr.IPAddressString;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;

/**
 * Starts an embedded Neo4j 5 DBMS with the Bolt connector on 127.0.0.1 and authentication
 * on, for local development and tests (scripts/services/neo4j/neo4j.sh runs it).
 *
 * <p>Arguments: {@code <home dir> <bolt port> <password file> <pagecache MiB>}. The password
 * of user {@code neo4j} is set from the file at every start, so a regenerated file wins and
 * no "change password on first login" step is left. A {@code ready} file is written into
 * the home dir once the DBMS answers, and removed on shutdown (SIGTERM runs the hook).
 * Extra server settings can come from a neo4j.conf-style file named by the environment
 * variable {@code NEO4J_EXTRA_CONF} (for experiments); the settings below are applied after it.
 *
 * <p>Hardened for raw queries (docs/hardening.md, "Raw query safety"): LOAD CSV cannot read
 * local files ({@code dbms.security.allow_csv_import_from_file_urls=false}, and the import
 * directory is an empty folder of its own), cannot fetch any URL (every IPv4 and IPv6
 * address is on {@code internal.dbms.cypher_ip_blocklist}), and only the allow-listed procedures
 * are loaded ({@code dbms.security.procedures.allowlist}, see {@link #PROCEDURES}).
 */
public final class Neo4jLauncher {

    /** The only procedures the server loads: what the raw query console offers, plus the
     *  index wait the store itself calls after creating its indexes. */
    static final List<String> PROCEDURES = List.of(
            "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.*",
            "db.index.fulltext.queryNodes", "db.awaitIndexes", "db.awaitIndex", "db.ping");

    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: Neo4jLauncher <home dir> <bolt port> <password file> <pagecache MiB>");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        String password = Files.readString(Path.of(args[2]), StandardCharsets.UTF_8).strip();
        long pagecacheMiB = Long.parseLong(args[3]);
        Path ready = home.resolve("ready");
        Files.deleteIfExists(ready);
        Path importDir = home.resolve("import-empty");
        Files.createDirectories(importDir);
        try (var entries = Files.list(importDir)) {
            if (entries.findAny().isPresent()) {
                System.err.println("refusing to start: the import directory " + importDir + " must be empty");
                System.exit(2);
            }
        }

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        // Extra settings for experiments: NEO4J_EXTRA_CONF names a neo4j.conf-style file. The
        // hardening settings below are set after it, so they always win.
        String extraConf = System.getenv().getOrDefault("NEO4J_EXTRA_CONF", "");
        if (!extraConf.isEmpty()) {
            builder.loadPropertiesFromFile(Path.of(extraConf));
        }
        DatabaseManagementService dbms = builder
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMiB))
                .setConfig(GraphDatabaseSettings.allow_file_urls, false)
                .setConfig(GraphDatabaseSettings.load_csv_file_url_root, importDir)
                .setConfig(GraphDatabaseInternalSettings.cypher_ip_blocklist,
                        List.of(new IPAddressString("0.0.0.0/0"), new IPAddressString("::/0")))
                .setConfig(GraphDatabaseSettings.procedure_allowlist, PROCEDURES)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.deleteIfExists(ready);
            } catch (IOException ignored) {
                // The script only reads the file while the process lives.
            }
            dbms.shutdown();
            stopped.countDown();
        }, "neo4j-shutdown"));

        setPassword(dbms, password);
        // A trivial query proves the default database is online before we say "ready".
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        Files.writeString(ready, "bolt://127.0.0.1:" + port + "\n", StandardCharsets.UTF_8);
        System.out.println("neo4j ready on bolt://127.0.0.1:" + port);
        stopped.await();
    }

    private static void setPassword(DatabaseManagementService dbms, String password) {
        var system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
        } catch (QueryExecutionException e) {
            // Neo4j refuses to "change" a password to the one already set: that is success.
            String msg = String.valueOf(e.getMessage()).toLowerCase();
            if (!msg.contains("same")) {
                throw e;
            }
        }
    }
}
