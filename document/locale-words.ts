// Words the renderers print, by language. `figures`, `tables`, `references` and `equation` are titles the PDF
// target passes to Typst; `contents`, `figure`, `table`, `listing` and `captionSeparator` are what Typst 0.14
// prints on its own (outline title, figure supplements, "Figure 1: …"), which the DOCX and ODT targets write
// themselves so that all three formats read the same.
export interface Words {
  figures: string;
  tables: string;
  references: string;
  equation: string;
  contents: string;
  figure: string;
  table: string;
  listing: string;
  /** Between a caption's number and its text. */
  captionSeparator: string;
}

const WORDS: Record<string, Words> = {
  en: { figures: 'List of Figures', tables: 'List of Tables', references: 'References', equation: 'Equation', contents: 'Contents', figure: 'Figure', table: 'Table', listing: 'Listing', captionSeparator: ': ' },
  de: { figures: 'Abbildungsverzeichnis', tables: 'Tabellenverzeichnis', references: 'Literatur', equation: 'Gleichung', contents: 'Inhaltsverzeichnis', figure: 'Abbildung', table: 'Tabelle', listing: 'Listing', captionSeparator: ': ' },
  fr: { figures: 'Table des figures', tables: 'Liste des tableaux', references: 'Références', equation: 'Équation', contents: 'Table des matières', figure: 'Fig.', table: 'Tableau', listing: 'Liste', captionSeparator: '. – ' },
  es: { figures: 'Índice de figuras', tables: 'Índice de tablas', references: 'Referencias', equation: 'Ecuación', contents: 'Índice', figure: 'Figura', table: 'Tabla', listing: 'Listado', captionSeparator: ': ' },
  it: { figures: 'Elenco delle figure', tables: 'Elenco delle tabelle', references: 'Riferimenti', equation: 'Equazione', contents: 'Indice', figure: 'Figura', table: 'Tabella', listing: 'Codice', captionSeparator: ': ' },
  nl: { figures: 'Lijst van figuren', tables: 'Lijst van tabellen', references: 'Referenties', equation: 'Vergelijking', contents: 'Inhoudsopgave', figure: 'Figuur', table: 'Tabel', listing: 'Listing', captionSeparator: ': ' },
  pt: { figures: 'Lista de figuras', tables: 'Lista de tabelas', references: 'Referências', equation: 'Equação', contents: 'Sumário', figure: 'Figura', table: 'Tabela', listing: 'Listagem', captionSeparator: ': ' },
  sr: { figures: 'Списак слика', tables: 'Списак табела', references: 'Литература', equation: 'Једначина', contents: 'Садржај', figure: 'Слика', table: 'Табела', listing: 'Програм', captionSeparator: ': ' },
  ru: { figures: 'Список иллюстраций', tables: 'Список таблиц', references: 'Литература', equation: 'Уравнение', contents: 'Содержание', figure: 'Рис.', table: 'Таблица', listing: 'Листинг', captionSeparator: '. ' },
};

export function wordsFor(lang: string): Words {
  return WORDS[lang] ?? WORDS.en!;
}
