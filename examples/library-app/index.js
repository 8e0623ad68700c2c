// @ts-check
/*
 * An example fw app: a small lending library. Plain JavaScript, so it runs under the built fw
 * (`node bin/fw.js serve`) as well as under tsx; the JSDoc types come from fw's public app types
 * and `npx tsc -p examples/library-app` checks them.
 *
 * It imports nothing from fw at run time: error classes and services come from the `api` that
 * `register` receives.
 */

/** @typedef {import('../../src/apps/index.js').App} App */
/** @typedef {import('../../src/apps/index.js').Doc} Doc */

/** The site's date today (YYYY-MM-DD) in its time zone. */
function today(/** @type {string} */ timeZone) {
  return new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
}

/** @type {App} */
export default {
  name: 'library',
  // Book and its child table Book Loan, one JSON file each, as Frappe ships DocTypes.
  doctypes: './doctypes',

  register(api) {
    const { ValidationError } = api.errors;

    // A lent book names its borrower; an available one names nobody.
    api.hooks.on('Book', 'validate', async ({ doc }, next) => {
      if (doc.status === 'Lent' && !doc.lent_to) {
        throw new ValidationError(`${String(doc.title)} is marked Lent: set Lent To`);
      }
      if (doc.status === 'Available') doc.lent_to = null;
      await next();
    });

    // Every new book gives its owner a ToDo to put it on the shelf, in the same transaction.
    api.hooks.on('Book', 'after_insert', async ({ doc, ctx }, next) => {
      await api.documents.insert(
        ctx,
        'ToDo',
        {
          description: `Put ${String(doc.title)} on the shelf`,
          allocated_to: doc.owner,
          reference_type: 'Book',
          reference_name: doc.name,
        },
        { ignorePermissions: true },
      );
      await next();
    });

    // Roles grant Librarians delete; a lent book may still be deleted only by a System Manager.
    api.permissions.onHasPermission('Book', ({ doc, right, principal }) => {
      if (right === 'delete' && doc.status === 'Lent' && !principal.roles.has('System Manager')) return false;
      return undefined;
    });

    // GET /api/method/library.api.available_books: the titles of the available books the caller may read.
    api.methods.register(
      'library.api.available_books',
      async ({ ctx }) => {
        const rows = await api.list(ctx, 'Book', {
          fields: ['title'],
          filters: { status: 'Available' },
          order_by: 'title asc',
          limit_page_length: 0,
        });
        return rows.map((row) => row.title);
      },
      { methods: ['GET'], description: 'The titles of the available books the caller may read, by title.' },
    );

    // POST /api/method/library.api.lend {book, user}: lends a book, recording the loan.
    api.methods.register(
      'library.api.lend',
      async ({ ctx, args }) => {
        const book = await api.documents.get(ctx, 'Book', String(args.book));
        if (book.status === 'Lent') {
          throw new ValidationError(`${String(book.title)} is already lent to ${String(book.lent_to)}`);
        }
        const loans = /** @type {Doc[]} */ (book.loans ?? []);
        return api.documents.update(ctx, 'Book', String(book.name), {
          status: 'Lent',
          lent_to: args.user,
          loans: [...loans, { lent_to: args.user }],
        });
      },
      {
        methods: ['POST'],
        description: 'Lends a book to a user and records the loan; a book already lent is refused (417).',
        params: [
          { name: 'book', type: 'string', required: true, description: 'The Book.' },
          { name: 'user', type: 'string', required: true, description: 'The User who borrows it.' },
        ],
      },
    );

    // run_doc_method on a Book: `return_book` makes it available again and closes the open loan.
    api.methods.registerDocMethod(
      'Book',
      'return_book',
      async ({ ctx, doc }) => {
        if (doc.status !== 'Lent') throw new ValidationError(`${String(doc.title)} is not lent`);
        const loans = /** @type {Doc[]} */ (doc.loans ?? []);
        const returned = today(ctx.settings.timeZone);
        return api.documents.update(ctx, 'Book', String(doc.name), {
          status: 'Available',
          loans: loans.map((loan) => (loan.returned_on ? loan : { ...loan, returned_on: returned })),
        });
      },
      { methods: ['POST'] },
    );
  },
};
