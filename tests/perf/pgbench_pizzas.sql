-- One cycle of specs/pizzas.yaml for pgbench -M prepared: the statements
-- the postgres target sends for each command (targets/sqlgen.c), with the
-- values it binds, but as a plain client sends them: one statement per
-- round trip, each command in BEGIN ... COMMIT. pgbench counts this script
-- as one transaction; it is four commands. Run by tests/perf/peers.py with
-- search_path, synchronous_commit and the -D values below set:
--   pizza     {"price_cents":1200,"size":"large"}
--   empty     []
--   one       [{"name":"Basil","amount":3}]
--   two       [{"name":"Basil","amount":3},{"name":"Olive","amount":2}]
--   created, basil, olive, purchased: the event payloads
-- The name is the cycle number, counting on from -D n=START as bench's
-- ${n} does (bench binds "pizza-N"; the payloads are the same every cycle:
-- the events table takes them as they are, only the Order key is unique).
\set n :n + 1
BEGIN;
INSERT INTO "Order" ("name", "pizza", "toppings", "customer_name", "status") VALUES (:n, :pizza, :empty, NULL, :available);
INSERT INTO "events" ("aggregate", "identity", "event", "payload") VALUES (:order, :n, :created_event, :created);
COMMIT;
BEGIN;
SELECT "pizza", "toppings", "customer_name", "status" FROM "Order" WHERE "name" = :n;
UPDATE "Order" SET "pizza" = :pizza, "toppings" = :one, "customer_name" = NULL, "status" = :available WHERE "name" = :n;
INSERT INTO "events" ("aggregate", "identity", "event", "payload") VALUES (:order, :n, :added_event, :basil);
COMMIT;
BEGIN;
SELECT "pizza", "toppings", "customer_name", "status" FROM "Order" WHERE "name" = :n;
UPDATE "Order" SET "pizza" = :pizza, "toppings" = :two, "customer_name" = NULL, "status" = :available WHERE "name" = :n;
INSERT INTO "events" ("aggregate", "identity", "event", "payload") VALUES (:order, :n, :added_event, :olive);
COMMIT;
BEGIN;
SELECT "pizza", "toppings", "customer_name", "status" FROM "Order" WHERE "name" = :n;
UPDATE "Order" SET "pizza" = :pizza, "toppings" = :two, "customer_name" = :chris, "status" = :sold WHERE "name" = :n;
INSERT INTO "events" ("aggregate", "identity", "event", "payload") VALUES (:order, :n, :purchased_event, :purchased);
COMMIT;
