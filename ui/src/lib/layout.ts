import { LAYOUT_TYPES, type DocField } from './session';

/** A form's layout as the reference's desk draws it: tabs of sections of columns of fields. */
export interface Column {
  fields: DocField[];
}
export interface Section {
  key: string;
  label: string;
  columns: Column[];
}
export interface Tab {
  key: string;
  label: string;
  sections: Section[];
}

/**
 * Splits a DocType's fields at Tab Break, Section Break and Column Break. Hidden fields and other
 * decorations stay out; empty sections and tabs are dropped so a form never shows bare headings.
 */
export function formLayout(fields: readonly DocField[]): Tab[] {
  const tabs: Tab[] = [];
  let tab: Tab = { key: 'details', label: 'Details', sections: [] };
  let section: Section = { key: 's0', label: '', columns: [{ fields: [] }] };
  const closeSection = () => {
    section.columns = section.columns.filter((c) => c.fields.length > 0);
    if (section.columns.length) tab.sections.push(section);
  };
  const closeTab = () => {
    closeSection();
    if (tab.sections.length) tabs.push(tab);
  };
  fields.forEach((f, i) => {
    if (f.fieldtype === 'Tab Break') {
      closeTab();
      tab = { key: f.fieldname || `t${i}`, label: f.label || f.fieldname, sections: [] };
      section = { key: `s${i}`, label: '', columns: [{ fields: [] }] };
    } else if (f.fieldtype === 'Section Break') {
      closeSection();
      section = { key: f.fieldname || `s${i}`, label: f.label ?? '', columns: [{ fields: [] }] };
    } else if (f.fieldtype === 'Column Break') {
      section.columns.push({ fields: [] });
    } else if (!LAYOUT_TYPES.has(f.fieldtype) && f.hidden !== 1) {
      section.columns[section.columns.length - 1].fields.push(f);
    }
  });
  closeTab();
  return tabs;
}
