-- The tables the postgres target creates for specs/pizzas.yaml
-- (targets/sqlgen.c; tests/test_sqlgen.c checks they are the same), in a
-- schema of their own for pgbench_pizzas.sql. psql -v schema=NAME.
CREATE SCHEMA :"schema";
CREATE TABLE :"schema"."Order" ("name" text COLLATE "C" PRIMARY KEY, "pizza" json NOT NULL, "toppings" json NOT NULL, "customer_name" text, "status" text NOT NULL);
CREATE TABLE :"schema"."events" ("sequence" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "aggregate" text NOT NULL, "identity" text NOT NULL, "event" text NOT NULL, "payload" json NOT NULL);
