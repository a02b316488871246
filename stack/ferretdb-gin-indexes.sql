-- FerretDB 1.x (PostgreSQL backend) keeps each collection as a table of one jsonb column and creates
-- a MongoDB index as a btree on expressions such as (_jsonb -> 'tenant_id'). Its queries, though,
-- filter with containment ((_jsonb -> 'tenant_id') @> '"t1"'), which a btree cannot serve: every
-- read scans its whole table, so a lookup by _id takes 120 ms at 100,000 documents instead of 3.
-- A GIN index on the same expressions serves that operator. These triggers give every btree index
-- FerretDB creates a GIN companion (and drop it with its btree); MongoDB itself needs none of this.
-- Idempotent: stack/up.sh applies it on every start, and the DO block at the end adds companions to
-- indexes created before the triggers existed.

-- A companion's name follows from its btree's schema and name (a dropped index's oid resolves no more).
CREATE OR REPLACE FUNCTION ferretdb_gin_companion_name(schema_name text, index_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'gin_' || substr(md5(schema_name || '.' || index_name), 1, 24) $$;

CREATE OR REPLACE FUNCTION ferretdb_add_gin_companion(index_oid oid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  idx pg_index%ROWTYPE;
  table_schema text;
  table_name text;
  index_name text;
  columns text[] := '{}';
  expression text;
BEGIN
  SELECT * INTO idx FROM pg_index WHERE indexrelid = index_oid;
  IF NOT FOUND OR idx.indpred IS NOT NULL THEN RETURN; END IF;
  -- Only btree indexes on jsonb expressions of FerretDB's _jsonb column.
  IF (SELECT amname FROM pg_am JOIN pg_class c ON c.relam = pg_am.oid WHERE c.oid = index_oid) <> 'btree' THEN RETURN; END IF;
  FOR k IN 1..idx.indnkeyatts LOOP
    expression := pg_get_indexdef(index_oid, k, true);
    IF expression NOT LIKE '(_jsonb %' THEN RETURN; END IF;
    columns := columns || expression;
  END LOOP;
  SELECT n.nspname, c.relname INTO table_schema, table_name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = idx.indrelid;
  SELECT relname INTO index_name FROM pg_class WHERE oid = index_oid;
  -- fastupdate off: a read right after a write (a stream's next event) must not scan a pending list.
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s) WITH (fastupdate = off)',
    ferretdb_gin_companion_name(table_schema, index_name), table_schema, table_name, array_to_string(columns, ', '));
EXCEPTION WHEN others THEN
  -- A companion is an optimisation: never fail FerretDB's own statement for it.
  RAISE WARNING 'no GIN companion for %: %', index_oid::regclass, SQLERRM;
END $$;

CREATE OR REPLACE FUNCTION ferretdb_gin_on_create_index() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  command record;
BEGIN
  FOR command IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM ferretdb_add_gin_companion(command.objid);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION ferretdb_gin_on_drop_index() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  dropped record;
BEGIN
  FOR dropped IN SELECT * FROM pg_event_trigger_dropped_objects() WHERE object_type = 'index' AND NOT is_temporary LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I.%I', dropped.schema_name,
      ferretdb_gin_companion_name(dropped.schema_name, dropped.object_name));
  END LOOP;
END $$;

DROP EVENT TRIGGER IF EXISTS ferretdb_gin_on_create_index;
CREATE EVENT TRIGGER ferretdb_gin_on_create_index ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION ferretdb_gin_on_create_index();
DROP EVENT TRIGGER IF EXISTS ferretdb_gin_on_drop_index;
CREATE EVENT TRIGGER ferretdb_gin_on_drop_index ON sql_drop WHEN TAG IN ('DROP INDEX')
  EXECUTE FUNCTION ferretdb_gin_on_drop_index();

DO $$
DECLARE
  index_oid oid;
BEGIN
  FOR index_oid IN
    SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'public') AND n.nspname NOT LIKE 'pg_%'
      AND NOT EXISTS (SELECT 1 FROM pg_class g WHERE g.relname = ferretdb_gin_companion_name(n.nspname, c.relname) AND g.relnamespace = n.oid)
  LOOP
    PERFORM ferretdb_add_gin_companion(index_oid);
  END LOOP;
END $$;
