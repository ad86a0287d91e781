/**
 * Kysely's MySQL query compiler, taught the few things octonet's store writes in the form
 * PostgreSQL and SQLite share, so the store's queries and migrations stay one text for all three:
 *
 * - `on conflict (...) do nothing | do update set c = excluded.c` becomes MySQL's
 *   `on duplicate key update` (a no-op assignment for "do nothing": unlike `insert ignore`, it
 *   still fails on every error that is not the duplicate);
 * - `order by x asc nulls first` drops the clause MySQL does not parse where it is MySQL's own
 *   order anyway (NULL is the smallest value), and sorts on `x is null` first where it is not;
 * - `create table` declares the character set and collation (see `./dialect.ts` for the choice),
 *   and turns column-level `references` into table-level foreign keys: MySQL parses the column
 *   form and ignores it.
 */
import {
  ColumnDefinitionNode,
  ForeignKeyConstraintNode,
  MysqlQueryCompiler,
  OrderByItemNode,
  type CreateTableNode,
  type OnConflictNode,
  type OperationNode,
  type ReferenceNode,
} from 'kysely';

/** The direction of an order-by item (Kysely keeps it as a raw `asc`/`desc` fragment). */
function isDescending(direction: OperationNode | undefined): boolean {
  const fragments = (direction as { sqlFragments?: readonly string[] } | undefined)?.sqlFragments;
  return fragments?.join('').trim().toLowerCase() === 'desc';
}

export class OctonetMysqlQueryCompiler extends MysqlQueryCompiler {
  /** Inside `on duplicate key update`, where `excluded.c` reads `values(c)`. */
  #inConflictUpdate = false;

  constructor(private readonly collation: () => string) {
    super();
  }

  protected override visitCreateTable(node: CreateTableNode): void {
    const columns = node.columns.map((c) =>
      c.references ? ColumnDefinitionNode.cloneWith(c, { references: undefined }) : c,
    );
    // The ReferencesNode carries its own `on delete`: the constraint repeats nothing.
    const foreignKeys = node.columns.flatMap(({ column, references }) =>
      references ? [{ ...ForeignKeyConstraintNode.create([column], references.table, []), references }] : [],
    );
    super.visitCreateTable({ ...node, columns, constraints: [...(node.constraints ?? []), ...foreignKeys] });
    this.append(` default character set utf8mb4 collate ${this.collation()}`);
  }

  protected override visitOrderByItem(node: OrderByItemNode): void {
    if (!node.nulls) return super.visitOrderByItem(node);
    const descending = isDescending(node.direction);
    const natural = descending ? node.nulls === 'last' : node.nulls === 'first';
    if (!natural) {
      // `x is null` is 0 or 1: ascending puts the NULLs last, descending first.
      this.append('(');
      this.visitNode(node.orderBy);
      this.append(node.nulls === 'first' ? ') is null desc, ' : ') is null asc, ');
    }
    super.visitOrderByItem(OrderByItemNode.cloneWith(node, { nulls: undefined }));
  }

  protected override visitOnConflict(node: OnConflictNode): void {
    this.append('on duplicate key update ');
    if (node.doNothing === true || !node.updates?.length) {
      const column = node.columns?.[0];
      if (!column) throw new Error('on conflict do nothing needs its conflict columns on MySQL');
      this.visitNode(column);
      this.append(' = ');
      this.visitNode(column);
      return;
    }
    if (node.updateWhere) throw new Error('on conflict ... do update ... where has no MySQL form');
    this.#inConflictUpdate = true;
    try {
      this.compileList(node.updates);
    } finally {
      this.#inConflictUpdate = false;
    }
  }

  protected override visitReference(node: ReferenceNode): void {
    if (this.#inConflictUpdate && node.table?.table.identifier.name === 'excluded') {
      this.append('values(');
      this.visitNode(node.column);
      this.append(')');
      return;
    }
    super.visitReference(node);
  }
}
