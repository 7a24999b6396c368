// The LibreOffice conversion service: a warm soffice driven over UNO, shared by the plugins of one process.
export { LibreOfficeConverter, OfficeConversionError, type LibreOfficeOptions, type ConversionErrorCode, type ConvertOptions, type ConverterStats } from './converter.js';
export { acquireLibreOffice, type LibreOfficeLease } from './shared.js';
export { FORMAT_INFO, OFFICE_FORMATS, formatOfMime, type OfficeFormat } from './formats.js';
export { libreOfficeSettings, libreOfficeComponents, LIBREOFFICE_ENV, type LibreOfficeSettings } from './settings.js';
